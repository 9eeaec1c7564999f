/**
 * `sandbox export` and `sandbox import` against real sandboxes (in this process): a state exported
 * from one and imported into a fresh one answers every list and get command the same; import
 * refuses bad files and a missing --yes before sending anything.
 */
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import CheckoutGet from '../../src/commands/checkout/get.js'
import CustomizeGet from '../../src/commands/customize/get.js'
import EventsGet from '../../src/commands/events/get.js'
import EventsList from '../../src/commands/events/list.js'
import GroupsConfig from '../../src/commands/groups/config.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import RefundGet from '../../src/commands/refund/get.js'
import RefundList from '../../src/commands/refund/list.js'
import SandboxExport from '../../src/commands/sandbox/export.js'
import SandboxImport from '../../src/commands/sandbox/import.js'
import UsersGet from '../../src/commands/users/get.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersMe from '../../src/commands/users/me.js'
import WebhookList from '../../src/commands/webhook/list.js'
import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {DEMO_USERS} from '../../src/sandbox/health/seed.js'
import {SANDBOX_KEYS, sandboxBaseUrls} from '../../src/services/sandbox-defaults.js'
import {isolate, runCommand, type Runnable} from '../helpers/command.js'
import {controlHeaders} from '../helpers/control.js'

const CLOCK = '2026-11-21T02:00:00.000Z'
const SECRET = {authorization: basicAuth(SANDBOX_KEYS.secretKey)}

let env: ReturnType<typeof isolate>
let source: RunningSandbox
let target: RunningSandbox
/** every list and get command, with ids from the source's state */
type Command = Runnable & {name: string}
let reads: [Command, string[]][]

/** Points the CLI (the built-in sandbox profile) at a sandbox. */
function use(sb: RunningSandbox): void {
  const urls = sandboxBaseUrls(sb.origin)
  process.env.OPSCTL_HEALTH_URL = urls.health
  process.env.OPSCTL_CHECKOUT_URL = urls.checkout
  process.env.OPSCTL_SANDBOX_TOKEN = sb.token
}

async function run(Cmd: Command, argv: string[]) {
  const r = await runCommand(Cmd, argv)
  expect(r.code, `${Cmd.name} ${argv.join(' ')}: ${r.stderr}`).toBe(0)
  return r
}

beforeAll(async () => {
  env = isolate()
  source = await createSandbox({port: 0, seed: true, clock: CLOCK})
  target = await createSandbox({port: 0, clock: CLOCK})
  use(source)
  await run(UsersLogin, ['--email', DEMO_USERS.patient.email, '--password', DEMO_USERS.patient.password])
  // more than the seed has: a refund, a webhook, a customization
  const checkouts = await source.ctx.state.checkout.checkouts.values()
  const earlier = checkouts.find((c) => c.requestReferenceNumber === 'SEED-PAID-EARLIER')!
  const inject = (method: 'POST', url: string, payload: Record<string, unknown>) =>
    source.app.inject({method, url, payload, headers: SECRET}).then((r) => r.json())
  const refund = await inject('POST', `/checkout/v1/checkouts/${earlier.id}/refunds`, {reason: 'fixture', amount: {value: '100.00', currency: 'PHP'}})
  await inject('POST', '/checkout/v1/webhooks', {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/hook'})
  const look = {logoUrl: 'https://shop.example/l.png', iconUrl: 'https://shop.example/i.png', appleTouchIconUrl: 'https://shop.example/a.png'}
  await inject('POST', '/checkout/v1/customizations', {...look, customTitle: 'Shop', colorScheme: '#123456'})

  const me = JSON.parse((await run(UsersMe, ['--json'])).stdout)
  const listed = JSON.parse((await run(EventsList, ['me', '--all', '--json'])).stdout)
  const events = (Array.isArray(listed) ? listed : listed.events) as {id: string}[]
  reads = [
    [UsersMe, []],
    [UsersGet, [me.id]],
    [EventsList, ['me', '--all']],
    [EventsList, ['me', '--medication-type', 'rescue', '--start', '2026-10-20', '--end', '2026-11-10']],
    [EventsGet, ['me', events.at(-1)!.id]],
    [GroupsConfig, ['demo-clinic']],
    [MetricsGet, ['me', '--name', 'eventsRescue', '--period', 'daily', '--start', '2026-10-10', '--end', '2026-11-20']],
    ...checkouts.map((c): [Command, string[]] => [CheckoutGet, [c.id]]),
    [RefundList, [earlier.id]],
    [RefundGet, [earlier.id, refund.refundId]],
    [WebhookList, []],
    [CustomizeGet, []],
  ]
})

afterAll(async () => {
  await source?.close()
  await target?.close()
  env.cleanup()
})

describe('sandbox export and import', () => {
  it('a state exported from one sandbox and imported into a fresh one gives the same answers to every list and get command', async () => {
    const file = join(env.dir, 'fixture.json')
    const exported = await run(SandboxExport, [file, '--json'])
    expect(JSON.parse(exported.stdout)).toMatchObject({file, users: 2, checkouts: 2, webhooks: 1, events: expect.any(Number)})
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).not.toContain(DEMO_USERS.patient.password)

    const answers = new Map<string, string>()
    for (const [Cmd, argv] of reads) answers.set(`${Cmd.name} ${argv.join(' ')}`, (await run(Cmd, [...argv, '--json'])).stdout)

    use(target)
    // before the import, the fresh sandbox knows nothing of it
    expect((await runCommand(UsersMe, ['--json'])).code).toBe(3)
    // the CLI's sign-in goes over with the state only when asked: this is a restore of the same data
    const imported = await run(SandboxImport, [file, '--keep-sessions', '--yes', '--json'])
    expect(JSON.parse(imported.stdout)).toEqual(JSON.parse(exported.stdout))
    for (const [Cmd, argv] of reads) {
      const key = `${Cmd.name} ${argv.join(' ')}`
      expect(JSON.parse((await run(Cmd, [...argv, '--json'])).stdout), key).toEqual(JSON.parse(answers.get(key)!))
    }

    // by default the file's sessions are dropped: the same cookie no longer signs in
    await run(SandboxImport, [file, '--yes', '--json'])
    expect((await runCommand(UsersMe, ['--json'])).code).toBe(3)
    use(source)
  })

  it('import refuses a file that is no state, one of a newer version, and a run without --yes, before sending anything', async () => {
    use(target)
    const before = (await target.app.inject({url: '/__sandbox/state', headers: controlHeaders(target.token)})).json()
    const notJson = join(env.dir, 'not.json')
    writeFileSync(notJson, 'users: []')
    const newer = join(env.dir, 'newer.json')
    writeFileSync(newer, JSON.stringify({version: 99, health: {}}))
    const good = join(env.dir, 'empty.json')
    writeFileSync(good, JSON.stringify({version: 2}))

    const cases: [string[], RegExp][] = [
      [[join(env.dir, 'missing.json'), '--yes'], /Cannot read .*missing\.json: ENOENT/],
      [[notJson, '--yes'], /not\.json is not JSON/],
      [[good], /is destructive and needs confirmation; pass --yes/],
    ]
    for (const [argv, message] of cases) {
      const r = await runCommand(SandboxImport, argv)
      expect([argv[0], r.code]).toEqual([argv[0], 2])
      expect(r.stderr).toMatch(message)
    }

    // the sandbox refuses a version it does not know, changing nothing
    const refused = await runCommand(SandboxImport, [newer, '--yes'])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('version 99, written by a newer opsctl')
    expect((await target.app.inject({url: '/__sandbox/state', headers: controlHeaders(target.token)})).json()).toEqual(before)
    use(source)
  })
})
