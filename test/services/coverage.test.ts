/**
 * Coverage computed from the tables: whatever a table holds, every operation has a sandbox
 * handler, a command that reaches it, and a smoke step. Adding a row without the rest fails here
 * (and a missing handler or smoke step already fails tsc: both are keyed by the table).
 */
import {readdirSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

import {sandboxModules} from '../../src/sandbox/modules.js'
import {checkoutService} from '../../src/services/checkout/operations.js'
import {healthService} from '../../src/services/health/operations.js'
import {runtimeSteps} from '../fixtures/smoke-steps.js'
import {operationsReached} from '../fixtures/source-graph.js'

const services = [healthService, checkoutService]
const ROOT = resolve(import.meta.dirname, '../..')

/** Every command file; `smoke` is left out: it calls everything, and the smoke check below covers it. */
function commandFiles(dir = join(ROOT, 'src/commands')): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return commandFiles(path)
    return entry.name.endsWith('.ts') && path !== join(ROOT, 'src/commands/smoke.ts') ? [path] : []
  })
}

describe.each(services)('the $name table', (service) => {
  const ids = service.list.map((op) => op.id)

  it('has a sandbox module serving every operation, each with a handler', () => {
    const module = sandboxModules.find((m) => m.service === service)
    expect(module, `no sandbox module serves ${service.name}`).toBeDefined()
    expect(ids.filter((id) => typeof module!.handlers[id] !== 'function')).toEqual([])
  })

  it('has a command that reaches every operation', () => {
    const tables = new Map(services.map((s) => [join(ROOT, `src/services/${s.name}/operations.ts`), new Set(Object.keys(s.operations))]))
    const reached = new Set(commandFiles().flatMap((file) => [...operationsReached(file, tables)]))
    expect(ids.filter((id) => !reached.has(id))).toEqual([])
  })

  it('has a smoke step for every operation', () => {
    const stepped = new Set(runtimeSteps().map((step) => step.operation))
    expect(ids.filter((id) => !stepped.has(id))).toEqual([])
  })
})
