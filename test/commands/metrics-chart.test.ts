/** `metrics get --chart` draws for people: with `-o` it is a usage error, before anything is sent. */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import MetricsGet from '../../src/commands/metrics/get.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

describe('metrics get --chart', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it('with -o csv: exit 2, one line that names both flags, nothing sent', async () => {
    const r = await h.run(MetricsGet, ['me', '--name', 'eventsRescue', '--chart', '-o', 'csv'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('Error: --output=csv cannot also be provided when using --chart')
    expect(h.calls()).toEqual([])
  })
})
