/** Tab offers id-safe words only, from every source of local knowledge (src/profiles/id-safe.ts). */
import {describe, expect, it} from 'vitest'

import {type CompletableCommand, completions, type LocalKnowledge} from '../../src/cli/completion/candidates.js'

const HOSTILE = ['chk_$(touch x)', 'chk_`id`', 'chk_a\nchk_b', '/*', 'chk_\u001B]0;t\u0007', 'chk ok', "chk_'q", 'chk_ok-1.2:3@4+5']
const commands: CompletableCommand[] = [
  {args: {checkoutId: {name: 'checkoutId'}}, flags: {profile: {name: 'profile', type: 'option'}}, id: 'checkout:void'},
  {args: {tenantId: {name: 'tenantId'}}, flags: {}, id: 'sandbox:tenant:delete'},
  {args: {userId: {name: 'userId'}, eventId: {name: 'eventId'}}, flags: {}, id: 'events:get'},
  {args: {command: {name: 'command'}}, flags: {'nested-commands': {char: 'n', name: 'nested-commands', type: 'boolean'}}, id: 'help'},
]
const known: LocalKnowledge = {checkoutIds: () => HOSTILE, eventIds: () => HOSTILE, profiles: () => HOSTILE, tenantIds: () => HOSTILE}

describe('completion candidates', () => {
  it('drops every word not made of letters, digits and _ - . : @ +, from each source', async () => {
    expect(await completions(commands, ['checkout', 'void', ''], known)).toEqual(['chk_ok-1.2:3@4+5'])
    expect(await completions(commands, ['checkout', 'void', 'x', '--profile', ''], known)).toEqual(['chk_ok-1.2:3@4+5'])
    expect(await completions(commands, ['checkout', 'void', 'x', '--profile='], known)).toEqual(['--profile=chk_ok-1.2:3@4+5'])
    expect(await completions(commands, ['sandbox', 'tenant', 'delete', ''], known)).toEqual(['chk_ok-1.2:3@4+5'])
    expect(await completions(commands, ['events', 'get', 'me', ''], known)).toEqual(['chk_ok-1.2:3@4+5'])
  })

  it('offers after help the topic and command words and the help topics, never a file', async () => {
    expect(await completions(commands, ['help', ''], known)).toEqual(['checkout', 'environment', 'events', 'exit-codes', 'help', 'sandbox'])
    expect(await completions(commands, ['help', 'sandbox', ''], known)).toEqual(['tenant'])
    expect(await completions(commands, ['help', 'sandbox', 'tenant', ''], known)).toEqual(['delete'])
    expect(await completions(commands, ['help', 'events', 'get', ''], known)).toEqual([])
    expect(await completions(commands, ['help', 'evnts', ''], known)).toEqual([])
    expect(await completions(commands, ['help', '--'], known)).toEqual(['--nested-commands'])
  })

  it('offers every flag for a bare --', async () => {
    expect(await completions(commands, ['checkout', 'void', '--'], known)).toEqual(['--profile'])
    expect(await completions(commands, ['checkout', 'void', '--', '--'], known)).toEqual([])
  })
})
