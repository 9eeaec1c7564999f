/**
 * Mistyped commands, topics and flags: through oclif's own routing (`run` from @oclif/core, with the
 * project's command_not_found hook, loaded from dist/ as in a real run: needs `npm run build`), in this
 * process. A guess is named, never run, and nothing is sent.
 */
import {run} from '@oclif/core'
import {describe, expect, it} from 'vitest'

import EventsList from '../../src/commands/events/list.js'
import RefundCreate from '../../src/commands/refund/create.js'
import {isolatedWithMockedServices, runCommand, type Runnable} from '../helpers/command.js'

const mocked = isolatedWithMockedServices()
const opsctl: Runnable = {run: (argv, config) => run(argv, config)}

describe('a mistyped command or topic', () => {
  it.each([
    [['evnts'], '`evnts` is not a command. Did you mean `events`?'],
    [['customize', 'remov', '--yes'], '`customize remov` is not a command. Did you mean `customize remove`?'],
    [['profil', 'list'], '`profil list` is not a command. Did you mean `profile list`?'],
    [['metrics', 'gett', 'me', '--name', 'eventsRescue'], 'Did you mean `metrics get`?'],
    [['plan', 'medication', 'ad', 'me'], 'Did you mean `plan medication add`?'],
    // a verb of another tool is taken for this one's, not for the nearest spelling (`webhook update`)
    [['webhook', 'create', '--name', 'CHECKOUT_SUCCESS'], '`webhook create` is not a command. Did you mean `webhook register`?'],
    [['refund', 'ls'], 'Did you mean `refund list`?'],
  ])('%j names the nearest one, exits 2 and sends nothing', async (argv, expected) => {
    const r = await runCommand(opsctl, argv)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.split('\n')[0]).toContain(expected)
    expect(mocked.services.calls()).toEqual([])
  })

  it('says so without a guess when nothing is close', async () => {
    const r = await runCommand(opsctl, ['xyzzy'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('Error: `xyzzy` is not a command.\n  Try this: Read the help: opsctl --help\n')
  })

  it('answers with the JSON error document under --json', async () => {
    const r = await runCommand(opsctl, ['evnts', 'list', '--json'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        exitCode: 2,
        message: '`evnts list` is not a command. Did you mean `events list`?',
        name: 'UsageError',
        suggestions: ['Read the help: opsctl events list --help'],
      },
    })
  })
})

describe('an unknown flag', () => {
  it('names the nearest flag of the command, exit 2, nothing sent', async () => {
    const r = await runCommand(EventsList, ['--limt', '3', 'me'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('Error: Unknown flag --limt. Did you mean --limit?')
    expect(mocked.services.calls()).toEqual([])
  })

  it('suggests global flags too, and reads --flag=value', async () => {
    const r = await runCommand(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1.00', '--yse', '--dryrun=1'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('Error: Unknown flags --yse. Did you mean --yes?; --dryrun. Did you mean --dry-run?')
    expect(mocked.services.calls()).toEqual([])
  })

  it('is still one line without a guess', async () => {
    const r = await runCommand(EventsList, ['me', '--zzzzzzzz'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('Error: Unknown flag --zzzzzzzz.')
  })
})
