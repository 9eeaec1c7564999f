/**
 * --query that finds nothing says so on stderr (naming the document's top-level keys and, when it
 * can, the expression likely meant), keeps exit 0 and stdout as the result; a syntax error names
 * the flag once.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import CheckoutList from '../../src/commands/checkout/list.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

describe('--query that finds nothing', () => {
  it('a list is a document: [].checkoutId prints null, exit 0, and one warning naming its keys and the likely expression', async () => {
    const r = await h.run(CheckoutList, ['--json', '--query', '[].checkoutId'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('null')
    expect(r.stderr).toBe('Warning: --query found nothing (null): the document is {"checkouts": [...]}; did you mean checkouts[].checkoutId?\n')
  })

  it('an unknown name warns too, in any format', async () => {
    const r = await h.run(CheckoutList, ['--query', 'nosuch', '-o', 'ndjson'])
    expect(r.code).toBe(0)
    expect(r.stderr.match(/^Warning: --query found nothing/gm)).toHaveLength(1)
    expect(r.stderr).toContain('the document is {"checkouts": [...]}')
  })

  it('a result is not warned about', async () => {
    const r = await h.run(CheckoutList, ['--json', '--query', 'keys(@)'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(['checkouts'])
    expect(r.stderr).not.toContain('Warning')
  })

  it('a syntax error names the flag once: exit 2', async () => {
    const r = await h.run(CheckoutList, ['--query', 'events['])
    expect(r.code).toBe(2)
    expect(r.stderr.match(/--query:/g)).toHaveLength(1)
  })
})
