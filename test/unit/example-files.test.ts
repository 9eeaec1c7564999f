/**
 * The files that command examples pass with `--data @examples/...` are shipped, and each is a body
 * the operation accepts: an example a user copies works as written.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {checkoutOps} from '../../src/services/checkout/operations.js'
import {healthOps} from '../../src/services/health/operations.js'
import {loadConfig, ROOT} from '../helpers/command.js'

const BODIES = {
  'changes.json': healthOps.updateEvent.body,
  'checkout.json': checkoutOps.initiateCheckout.body,
  'event.json': healthOps.addEvent.body,
  'medication.json': healthOps.addPlanMedication.body,
  'trial-event.json': healthOps.addEvent.body,
}

describe('example files', () => {
  it('every file an example names is in examples/, is shipped, and is a valid body of its operation', async () => {
    const config = await loadConfig()
    const examples = config.commands.flatMap((c) => (c.examples ?? []).map(String))
    const named = new Set(examples.flatMap((e) => [...e.matchAll(/@examples\/([\w.-]+)/g)].map((m) => m[1])))
    expect([...named].sort()).toEqual(Object.keys(BODIES).sort())
    for (const [file, schema] of Object.entries(BODIES)) {
      const parsed = schema!.safeParse(JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8')))
      expect(parsed.success, `${file}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true)
    }

    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).files).toContain('examples')
  })
})
