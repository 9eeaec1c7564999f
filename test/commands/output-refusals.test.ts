/** Output forms a command cannot give are refused before anything is sent: a chart with -o, CSV of several tables. */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import GroupsConfig from '../../src/commands/groups/config.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import UsersInspect from '../../src/commands/users/inspect.js'
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

describe('a document of several tables', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it.each([
    [GroupsConfig, ['demo-clinic'], 'Error: -o csv holds one table, and this document has 2 (its fields, medications)'],
    [UsersInspect, ['me'], 'Error: -o csv holds one table, and this document has 4 (user, plan, events, metrics)'],
  ] as const)('refuses -o csv before sending (%#), and says how to pick one', async (Cmd, argv, first) => {
    const r = await h.run(Cmd, [...argv, '-o', 'csv'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([first, expect.stringContaining('--query')])
    expect(h.calls()).toEqual([])
  })
})
