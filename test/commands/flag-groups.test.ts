/**
 * `--yes` and `--dry-run` exist only where they apply, checked over every command of the manifest
 * rather than a list kept by hand: --yes exactly on the commands built around a destructive row
 * (and `profile remove`, whose change is local), and a sandbox-only command refuses a production
 * profile before anything is sent.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {BaseCommand} from '../../src/cli/base-command.js'

import CheckoutPay from '../../src/commands/checkout/pay.js'
import ProfileAdd from '../../src/commands/profile/add.js'
import SandboxClock from '../../src/commands/sandbox/clock.js'
import SandboxStart from '../../src/commands/sandbox/start.js'
import {pathParams} from '../../src/http/operation.js'
import {cli, type CommandHarness, commandHarness, loadConfig} from '../helpers/command.js'

/** Confirms a change that is not a service call: a local removal, a whole sandbox state replaced or a tenant deleted through control routes. */
const LOCAL_CHANGES = new Set(['profile:remove', 'sandbox:import', 'sandbox:reset', 'sandbox:tenant:delete'])
/** Runs its probes that change data only when --yes says so (and never on production): it calls no one row. */
const PROBES_WITH_CHANGES = new Set(['sandbox:diff'])

async function commandClasses(): Promise<[string, typeof BaseCommand][]> {
  const config = await loadConfig()
  // opsctl's own commands; an alias (profile rm) is the same class under another id.
  const commands = config.commands.filter((c) => c.pluginName === config.name && !config.commands.some((o) => o.aliases?.includes(c.id)))
  return Promise.all(commands.map(async (c) => [c.id, (await c.load()) as unknown as typeof BaseCommand] as [string, typeof BaseCommand]))
}

describe('global flags come in groups', () => {
  it('--yes only where a destructive row (or a local removal) is the point; its path ids are the arguments', async () => {
    const classes = await commandClasses()
    expect(classes.length).toBeGreaterThan(30)
    for (const [id, Cmd] of classes) {
      const offersYes = 'yes' in (Cmd.baseFlags ?? {})
      expect(offersYes, id).toBe(Boolean(Cmd.changes?.destructive) || LOCAL_CHANGES.has(id) || PROBES_WITH_CHANGES.has(id))
      // The refusal before anything is sent names the resource from the arguments.
      if (Cmd.changes) for (const p of pathParams(Cmd.changes.path)) if (p !== 'userId') expect(Object.keys(Cmd.args ?? {}), id).toContain(p)
    }
  })

  it('--dry-run, --verbose and --timeout only on commands that send', async () => {
    const local = new Set(['autocomplete', 'complete', 'help', 'audit:access', 'audit:list', 'metrics:names', 'profile:add', 'profile:list', 'profile:remove', 'profile:set', 'profile:show', 'profile:use', 'sandbox:start', 'scenario:schema', 'users:logout'])
    for (const [id, Cmd] of await commandClasses()) {
      const flags = Object.keys(Cmd.baseFlags ?? {})
      for (const f of ['dry-run', 'verbose', 'timeout']) expect(flags.includes(f), `${id} --${f}`).toBe(!local.has(id))
    }
  })
})

describe('refused flags send and write nothing', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it('profile add --dry-run is a usage error and writes no profile', async () => {
    const r = await h.run(ProfileAdd, cli('spare', {env: 'sandbox', 'dry-run': true}))
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--dry-run')
    const listed = await h.run(ProfileAdd, cli('spare', {env: 'sandbox', json: true}))
    expect(listed.code, listed.stderr).toBe(0)
    // Only the second call wrote "spare": the first left the file without it.
    expect(Object.keys(h.profiles().profiles)).toEqual(['sandbox', 'spare'])
  })

  it('sandbox start takes none of --dry-run, --yes, --columns, --output', async () => {
    for (const argv of [['--dry-run'], ['--yes'], ['--columns', 'a'], ['--output', 'csv']]) {
      const r = await h.run(SandboxStart, ['--port', '0', ...argv])
      expect(r.code, argv[0]).toBe(2)
      expect(r.stdout).toBe('')
    }
  })

  it('sandbox-only commands refuse a production profile in one place, before sending', async () => {
    const add = await h.run(
      ProfileAdd,
      cli('live', {env: 'production', 'health-url': 'https://h.example.com', 'checkout-url': 'https://p.example.com', 'public-key': 'pk-1', use: true}),
    )
    expect(add.code, add.stderr).toBe(0)
    for (const [Cmd, argv] of [
      [SandboxClock, cli({advance: '1h'})],
      [CheckoutPay, cli('chk_1')],
    ] as const) {
      const r = await h.run(Cmd, argv)
      expect(r.code, Cmd.name).toBe(2)
      expect(r.stderr).toContain('profile live is production, and this works only against a sandbox')
    }

    expect(h.calls()).toEqual([])
  })
})
