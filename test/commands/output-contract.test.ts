/**
 * The output contract (docs/output.md): one JSON document per command, the same under --json and
 * -o json; --query on it; --columns checked against the view before anything is sent; multi-value
 * flags that never take the positional argument; tab-separated tables when stdout is a pipe. The
 * JSON shapes of the listing and detail commands are recorded in docs/output-shapes.md, so a change is deliberate.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import CheckoutGet from '../../src/commands/checkout/get.js'
import EventsGet from '../../src/commands/events/get.js'
import EventsList from '../../src/commands/events/list.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import MetricsNames from '../../src/commands/metrics/names.js'
import ProfileShow from '../../src/commands/profile/show.js'
import RefundGet from '../../src/commands/refund/get.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersMe from '../../src/commands/users/me.js'
import {listingCommands} from '../fixtures/listing-commands.js'
import {BASE, JSON_HEADERS as CHECKOUT_HEADERS, checkoutRecord} from '../helpers/checkout.js'
import {cli, type CommandHarness, commandHarness, ORIGIN, type Runnable} from '../helpers/command.js'
import {JSON_HEADERS, signedIn} from '../helpers/health.js'

const EVENTS = [
  {id: 'e1', date: '2026-03-01T15:30:00.000Z', medicationId: 'med-salbutamol', medicationType: 'rescue', symptoms: ['cough', 'wheeze'], triggers: [], nightEvent: true},
  {id: 'e2', date: '2026-03-02T03:00:00.000Z', medicationId: 'med-salbutamol', medicationType: 'rescue', symptoms: [], triggers: ['coldAir'], nightEvent: false},
]
const METRICS = {timeZone: 'Asia/Manila', periods: {daily: [{date: '2026-03-01', values: {eventsRescue: 1}}, {date: '2026-03-02', values: {eventsRescue: 1}}]}}
const GROUP = {id: 'g1', name: 'demo-clinic', timeZone: 'Asia/Manila', medications: [{id: 'med-salbutamol', name: 'Salbutamol', type: 'rescue'}]}
const REFUNDS = [{id: 'rfd_1', status: 'SUCCESS', amount: {value: '10.00', currency: 'PHP'}, reason: 'dup', createdAt: '2026-03-01T16:00:00.000Z'}]
const WEBHOOKS = [{id: 'wh_1', name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/paid'}]
const TENANT = {id: 'tn_0123456789abcdef', healthBaseUrl: `${ORIGIN}/t/tn_0123456789abcdef`, checkoutBaseUrl: `${ORIGIN}/t/tn_0123456789abcdef/checkout`, clock: '2026-03-01T16:00:00.000Z', createdAt: '2026-03-01T15:00:00.000Z', seeded: false}

let h: CommandHarness

function serve(): void {
  const pool = h.agent.get(ORIGIN)
  const health = (path: (p: string) => boolean, body: object) => pool.intercept({method: 'GET', path}).reply(200, body, {headers: JSON_HEADERS}).persist()
  const checkout = (path: string, body: object) => pool.intercept({method: 'GET', path: BASE + path}).reply(200, body, {headers: CHECKOUT_HEADERS}).persist()
  health((p) => p.startsWith('/api/users/u-1/events?') || p === '/api/users/u-1/events', {events: EVENTS, paging: {}})
  health((p) => p === '/api/users/u-1/events/e1', EVENTS[0])
  health((p) => p.startsWith('/api/users/u-1/metrics'), METRICS)
  health((p) => p === '/api/groups/demo-clinic/config', GROUP)
  health((p) => p === '/api/users/me', {id: 'u-1', email: 'ana@example.com', role: 'patient', timeZone: 'Asia/Manila'})
  checkout('/checkouts/chk_1/refunds', REFUNDS)
  checkout('/checkouts/chk_1/refunds/rfd_1', REFUNDS[0])
  checkout('/checkouts/chk_1', checkoutRecord({id: 'chk_1'}))
  checkout('/webhooks', WEBHOOKS)
  pool.intercept({method: 'GET', path: '/__sandbox/tenants'}).reply(200, {tenants: [TENANT]}, {headers: {'content-type': 'application/json'}}).persist()
}

beforeEach(async () => {
  h = await commandHarness()
  await signedIn(h, UsersLogin)
  serve()
})
afterEach(async () => {
  await h.close()
})

/**
 * How to run each listing command against the services mocked above, in the order
 * docs/output-shapes.md records them. Which commands are listings comes from their views
 * (test/fixtures/listing-commands.ts): a new one fails the first test until it has its argv here,
 * or a reason it is checked elsewhere.
 */
const ARGV: Record<string, string[]> = {
  'events list': ['me'],
  'metrics get': ['me', '--name', 'eventsRescue', '--period', 'daily'],
  'metrics names': [],
  'groups config': ['demo-clinic'],
  'refund list': ['chk_1'],
  'webhook list': [],
  'audit list': [],
  'audit access': [],
  'profile list': [],
  'sandbox tenant list': [],
}
const ELSEWHERE: Record<string, string> = {
  'checkout list': 'test/commands/checkout.test.ts (its rows come from the local audit log)',
  'checkout reconcile': 'test/e2e/checkout-reconcile.test.ts (its rows come from the shop\'s file, held against a sandbox)',
  'plan show': 'test/commands/health-support.test.ts',
  'profile check': 'test/commands/profile-settings.test.ts (it sends a request per credential)',
  'sandbox diff': 'test/commands/sandbox-diff.test.ts (it probes two services)',
  'scenario run': 'test/e2e/scenario.test.ts (it runs a scenario file)',
  smoke: 'test/commands/smoke.test.ts and test/e2e/smoke.test.ts (it runs every operation)',
  'webhook deliveries': 'test/e2e/due-work.test.ts (a sandbox control route, against a real sandbox)',
}
const LISTING = new Map(await listingCommands())
/** Listings whose document is an array, its own list: their views have no `list` key to find them by. */
const ARRAYS = new Map<string, Runnable>([['metrics names', MetricsNames]])
const LISTS = Object.entries(ARGV).map(([id, argv]): [string, Runnable, string[]] => [id, LISTING.get(id) ?? ARRAYS.get(id)!, argv])

const DETAILS: [string, Runnable, string[]][] = [
  ['events get', EventsGet, ['me', 'e1']],
  ['users me', UsersMe, []],
  ['refund get', RefundGet, ['chk_1', 'rfd_1']],
  ['checkout get', CheckoutGet, ['chk_1']],
  ['profile show', ProfileShow, []],
]

describe('one JSON document per command', () => {
  it('runs every listing command its view declares (or says where it is checked)', () => {
    expect([...LISTING.keys()].filter((id) => !(id in ARGV) && !(id in ELSEWHERE))).toEqual([])
    expect(Object.keys(ARGV).filter((id) => !LISTING.has(id) && !ARRAYS.has(id))).toEqual([])
  })

  it.each(LISTS)('%s: --json and -o json print the same document', async (_, Cmd, argv) => {
    const json = await h.run(Cmd, [...argv, '--json'])
    const output = await h.run(Cmd, [...argv, '-o', 'json'])
    expect(json.code, json.stderr).toBe(0)
    expect(output.code, output.stderr).toBe(0)
    expect(JSON.parse(output.stdout)).toEqual(JSON.parse(json.stdout))
  })

  it('events list: the document has its count, its events and paging; ndjson is one event per line', async () => {
    const doc = JSON.parse((await h.run(EventsList, ['me', '--json'])).stdout)
    expect(doc).toEqual({count: 2, events: EVENTS.map((e) => expect.objectContaining({id: e.id, date: e.date})), paging: {}})
    const lines = (await h.run(EventsList, ['me', '-o', 'ndjson'])).stdout.trim().split('\n')
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(['e1', 'e2'])
  })

  it('--json with another --output is a usage error, and nothing is sent', async () => {
    const r = await h.run(EventsList, ['me', '--json', '--output', 'csv'])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stderr).error.message).toMatch(/^--json and --output csv ask for two formats/)
    expect(r.stdout).toBe('')
    expect(h.calls()).toEqual([])
  })

  it('records the JSON shape of every listing and detail command (docs/output-shapes.md)', async () => {
    const sections: string[] = []
    for (const [name, Cmd, argv] of [...LISTS, ...DETAILS]) {
      const r = await h.run(Cmd, [...argv, '--json'])
      expect(r.code, `${name}: ${r.stderr}`).toBe(0)
      sections.push(`## ${name}\n\n\`\`\`\n${JSON.stringify(shapeOf(JSON.parse(r.stdout)), null, 2)}\n\`\`\`\n`)
    }

    const text = `# JSON shapes\n\nGenerated by test/commands/output-contract.test.ts from each command's --json document (types only; arrays show their first element). See output.md.\n\n${sections.join('\n')}`
    await expect(text).toMatchFileSnapshot('../../docs/output-shapes.md')
  })
})

describe('--query', () => {
  it('on a list: the JMESPath result, in any format', async () => {
    const json = await h.run(EventsList, ['me', '--query', 'events[?nightEvent].id', '-o', 'json'])
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual(['e1'])
    const csv = await h.run(EventsList, ['me', '--query', 'events[].{id: id, symptoms: symptoms}', '-o', 'csv'])
    expect(csv.stdout).toBe('id,symptoms\ne1,cough;wheeze\ne2,\n')
  })

  it('on a detail, under --json too', async () => {
    const r = await h.run(CheckoutGet, ['chk_1', '--json', '--query', '{id: id, amount: totalAmount.value}'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({amount: '1500.00', id: 'chk_1'})
  })

  it('a bad expression is exit 2 with the parser message, before anything is sent', async () => {
    const r = await h.run(EventsList, ['me', '--query', 'events[?'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^Error: --query: .*(Syntax|Unexpected|Expected)/)
    expect(h.calls()).toEqual([])
  })

  it('an expression that would build a huge text whatever the answer is exit 2 before anything is sent', async () => {
    const r = await h.run(EventsList, ['me', '--query', "pad_right('a', `1000000000`)"])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^Error: --query: stopped: pad_right to 1000000000 would build more than 1048576 characters/)
    expect(h.calls()).toEqual([])
  })

  it('an expression that builds a huge text from the answer is stopped at the limit: exit 1, since the request was sent', async () => {
    // each replace makes every "e" of the id 40 of them: 40^4 characters from the answer's "e1"
    const e40 = `'${'e'.repeat(40)}'`
    const query = `${'replace('.repeat(4)}events[0].id${`, 'e', ${e40})`.repeat(4)}`
    const r = await h.run(EventsList, ['me', '--query', query])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^Error: --query: stopped: replace would build more than 1048576 characters; the command itself ran/)
  })
})

describe('--columns', () => {
  it('an unknown column is exit 2, lists the available ones, and nothing is sent', async () => {
    const r = await h.run(EventsList, cli('me', {columns: 'id,colour'}))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^Error: --columns: unknown column "colour"; available: id, date, medicationType/)
    expect(h.calls()).toEqual([])
  })

  it('known columns, comma separated or repeated, pick what a pipe gets (tab-separated, with a header)', async () => {
    const r = await h.run(EventsList, ['me', '--columns', 'id,symptoms', '--columns', 'nightEvent'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('id\tsymptoms\tnightEvent\ne1\tcough;wheeze\ttrue\ne2\t\tfalse\n')
  })

  it('times in a table or CSV are in the user zone (kept at sign-in), or UTC with --utc; JSON keeps the ISO value', async () => {
    h.agent
      .get(ORIGIN)
      .intercept({method: 'POST', path: '/api/sign-in'})
      .reply(200, {email: 'ana@example.com', id: 'u-1', role: 'patient', timeZone: 'Asia/Manila'}, {
        headers: {...JSON_HEADERS, 'set-cookie': 'connect.sid=sess-9; Path=/'},
      })
    expect((await h.run(UsersLogin, ['--email', 'ana@example.com', '--password', 'pw-secret-1'])).code).toBe(0)
    expect((await h.run(EventsList, ['me', '--columns', 'date', '-o', 'csv'])).stdout).toBe(
      'date\n2026-03-01T23:30:00.000+08:00\n2026-03-02T11:00:00.000+08:00\n',
    )
    expect((await h.run(EventsList, ['me', '--columns', 'date', '-o', 'csv', '--utc'])).stdout).toBe(
      'date\n2026-03-01T15:30:00.000Z\n2026-03-02T03:00:00.000Z\n',
    )
    expect(JSON.parse((await h.run(EventsList, ['me', '--json'])).stdout).events[0].date).toBe('2026-03-01T15:30:00.000Z')
  })
})

describe('multi-value flags never take the user id', () => {
  it('metrics get --name eventsRescue me', async () => {
    const r = await h.run(MetricsGet, ['--name', 'eventsRescue', 'me', '--period', 'daily', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(h.calls()[0].path).toMatch(/^\/api\/users\/u-1\/metrics\?name=eventsRescue&period=daily/)
  })

  it('events list --symptom cough me', async () => {
    const r = await h.run(EventsList, ['--symptom', 'cough', 'me', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(h.calls()[0].path).toMatch(/^\/api\/users\/u-1\/events\?.*symptoms=cough/)
  })
})

type Shape = Shape[] | string | {[key: string]: Shape}

function shapeOf(value: unknown): Shape {
  if (Array.isArray(value)) return value.length > 0 ? [shapeOf(value[0])] : []
  if (value === null) return 'null'
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shapeOf(v)]))
  return typeof value
}
