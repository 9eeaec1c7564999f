/**
 * `opsctl sandbox diff` in-process: a tenant of a real sandbox in this process plays "theirs" (a
 * profile of its URLs, keys and a session), the command's own embedded sandbox plays "ours". A
 * loopback proxy in front of the tenant drifts on purpose; the report must name exactly that.
 */
import {createServer, type IncomingMessage, request, type ServerResponse} from 'node:http'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import SandboxDiff from '../../src/commands/sandbox/diff.js'
import {type Profile} from '../../src/profiles/schema.js'
import {ProfileStore} from '../../src/profiles/store.js'
import {isolate, runCommand} from '../helpers/command.js'
import {LoopbackServers} from '../helpers/loopback-servers.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'

const HOUR = 3_600_000

/** Rewrites an answer of the tenant on its way back: status and parsed JSON body in, the same out. */
type Drift = (req: IncomingMessage, answer: {status: number; body: any}) => {status: number; body: any}

/** A loopback proxy to `origin` that passes every request on and lets `drift` change the answers; `refuse` answers 500 without passing it on. */
async function driftingProxy(servers: LoopbackServers, origin: string, drift: Drift, refuse = (_req: IncomingMessage) => false): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (refuse(req)) {
      res.writeHead(500, {'content-type': 'application/json'}).end(JSON.stringify({code: 'X500', message: 'down'}))
      return
    }

    const upstream = request(new URL(req.url!, origin), {headers: req.headers, method: req.method}, (answer) => {
      const chunks: Buffer[] = []
      answer.on('data', (c: Buffer) => chunks.push(c))
      answer.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        const json = (answer.headers['content-type'] ?? '').includes('json') && text !== ''
        const changed = json ? drift(req, {body: JSON.parse(text), status: answer.statusCode!}) : {body: undefined, status: answer.statusCode!}
        const out = json ? JSON.stringify(changed.body) : text
        const headers = {...answer.headers, 'content-length': String(Buffer.byteLength(out))}
        delete headers['transfer-encoding']
        res.writeHead(changed.status, headers).end(out)
      })
    })
    req.pipe(upstream)
  })
  return servers.listen(server)
}

describe('opsctl sandbox diff', () => {
  let sandbox: InProcessSandbox
  let tenant: {id: string; healthBaseUrl: string; checkoutBaseUrl: string; publicKey: string; secretKey: string}
  let session: string
  let user: ReturnType<typeof isolate>
  const servers = new LoopbackServers()

  beforeAll(async () => {
    sandbox = await inProcessSandbox()
    tenant = await sandbox.control('tenants', {seed: false})
    // the profile's user, signed up as the probes sign up ours
    const res = await fetch(`${tenant.healthBaseUrl}/api/users`, {
      body: JSON.stringify({email: 'theirs@example.com', familyName: 'Diff', givenName: 'Opsctl', language: 'en-US', password: 'their-pass-123', role: 'patient', timeZone: 'Asia/Manila'}),
      headers: {'content-type': 'application/json', 'x-ph-api-version': '3.14.0'},
      method: 'POST',
    })
    expect(res.status).toBe(201)
    session = /connect\.sid=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]
  })
  afterAll(async () => {
    await servers.closeAll()
    await sandbox.close()
  })
  beforeEach(() => {
    user = isolate()
    process.env.OPSCTL_SANDBOX_TOKEN = sandbox.token
    process.env.OPSCTL_SANDBOX_URL = sandbox.origin
  })
  afterEach(() => user.cleanup())

  /** A profile of the tenant, reached through `origin` (the sandbox's own, or a proxy's). */
  async function saveProfile(name: string, origin: string, env: Profile['env'] = 'sandbox'): Promise<void> {
    const base = `${origin}/t/${tenant.id}`
    const store = await ProfileStore.open(user.dir)
    store.set(name, {
      checkout: {baseUrl: `${base}/checkout`, publicKey: tenant.publicKey, secretKey: tenant.secretKey},
      env,
      health: {apiVersion: '3.14.0', baseUrl: base, session},
    })
    await store.save()
  }

  const tenantCall = async (path: string) => {
    const res = await fetch(`${tenant.checkoutBaseUrl}${path}`, {headers: {authorization: `Basic ${Buffer.from(`${tenant.secretKey}:`).toString('base64')}`}})
    return res.json()
  }

  it('two sandboxes answer alike: every probe runs, 0 differences, exit 0, and what the probes made is gone', async () => {
    await saveProfile('twin', sandbox.origin)
    const tenantsBefore = (await sandbox.running.tenants.records()).map((t) => t.id)
    const r = await runCommand(SandboxDiff, ['--against', 'twin', '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    // the next-day refund ran in tenants of its own (a clock moves only forward), deleted after
    expect((await sandbox.running.tenants.records()).map((t) => t.id)).toEqual(tenantsBefore)
    const report = JSON.parse(r.stdout)
    expect(report.differences).toEqual([])
    expect(report.left).toBeUndefined()
    expect(report.probes.length).toBeGreaterThan(20)
    expect(report.probes.filter((p: any) => p.outcome !== 'same')).toEqual([])

    // cleaned up on theirs: no webhook, no event, the clock never moved, both paid checkouts settled
    expect(await tenantCall('/v1/webhooks')).toEqual([])
    const me = await (await fetch(`${tenant.healthBaseUrl}/api/users/me`, {headers: {cookie: `connect.sid=${session}`, 'x-ph-api-version': '3.14.0'}})).json()
    const events = await (await fetch(`${tenant.healthBaseUrl}/api/users/${me.id}/events`, {headers: {cookie: `connect.sid=${session}`, 'x-ph-api-version': '3.14.0'}})).json()
    expect(events.events).toEqual([])
    const clock = await (await fetch(`${sandbox.origin}/t/${tenant.id}/__sandbox/clock`, {headers: {authorization: `Bearer ${sandbox.token}`}})).json()
    expect(Math.abs(Date.parse(clock.now) - Date.now())).toBeLessThan(HOUR)
  })

  it('a drifted service in front of the tenant: exactly the renamed field, the other status and the extra enum value, exit 1', async () => {
    const proxy = await driftingProxy(servers, sandbox.origin, (req, answer) => {
      const path = new URL(req.url!, 'http://x').pathname
      if (req.method === 'POST' && path.endsWith('/checkout/v1/checkouts') && answer.status === 200) {
        const {redirectUrl, ...rest} = answer.body
        return {...answer, body: {...rest, checkoutUrl: redirectUrl}}
      }

      if (req.method === 'GET' && /\/checkout\/v1\/checkouts\/[^/]+$/.test(path)) {
        if (answer.status === 404) return {...answer, status: 400}
        if (answer.status === 200 && answer.body.status === 'CREATED') return {...answer, body: {...answer.body, status: 'AWAITING_BUYER'}}
      }

      return answer
    })
    await saveProfile('drifted', proxy)
    // the token is given for the origin the profile reaches the sandbox through (it goes to no other)
    process.env.OPSCTL_SANDBOX_URL = proxy
    const r = await runCommand(SandboxDiff, ['--against', 'drifted', '--yes', '--json'])
    expect(r.code, r.stderr).toBe(1)
    // in the order the probes run
    expect(JSON.parse(r.stdout).differences).toEqual([
      {ours: '404', probe: 'checkout.unknown-id', theirs: '400', where: 'status'},
      {ours: 'absent', probe: 'checkout.create', theirs: 'string', where: 'checkoutUrl'},
      {ours: 'string', probe: 'checkout.create', theirs: 'absent', where: 'redirectUrl'},
      {ours: 'CREATED', probe: 'checkout.get', theirs: 'AWAITING_BUYER', where: 'values of status'},
      // The refund probes make their checkout first: an answer without redirectUrl cannot be read, so they cannot run.
      ...['refund.same-day', 'refund.second'].map((probe) => ({
        ours: 'answered 400',
        probe,
        theirs: expect.stringContaining('the initiateCheckout answer could not be read: HTTP 200, application/json, redirectUrl:'),
        where: 'probe',
      })),
    ])

    // for people: one row a difference, grouped by probe, the count last
    const table = await runCommand(SandboxDiff, ['--against', 'drifted', '--service', 'checkout'], {env: {COLUMNS: '120'}})
    expect(table.code).toBe(1)
    expect(table.stdout.split('\n').filter(Boolean).map((l) => l.split('\t').slice(0, 2).join(' '))).toEqual([
      'probe where',
      'checkout.unknown-id status',
    ])
    expect(table.stderr).toMatch(/1 difference; .* \d+ skipped/)
    expect(table.stderr).toContain('skipped checkout.create: changes data: runs with --yes')
  })

  it('--sandbox-url: ours is a tenant made for the run on that sandbox, deleted after it', async () => {
    await saveProfile('twin', sandbox.origin)
    const before = (await sandbox.running.tenants.records()).map((t) => t.id)
    const r = await runCommand(SandboxDiff, ['--against', 'twin', '--sandbox-url', sandbox.origin, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout)
    // reads only: whatever changes data is skipped and says why
    expect(report.probes.find((p: any) => p.probe === 'checkout.create')).toMatchObject({note: 'changes data: runs with --yes', outcome: 'skipped'})
    expect(report.probes.filter((p: any) => p.outcome === 'same').length).toBeGreaterThan(8)
    expect((await sandbox.running.tenants.records()).map((t) => t.id)).toEqual(before)
  })

  it("an expired session or a key that no longer opens the service is exit 3, not a difference of every probe", async () => {
    await saveProfile('stale', sandbox.origin)
    const store = await ProfileStore.open(user.dir)
    const profile = store.get('stale')!
    store.set('stale', {...profile, health: {...profile.health, session: 'expired-session'}})
    await store.save()
    const r = await runCommand(SandboxDiff, ['--against', 'stale', '--service', 'health'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stdout).toBe('')
    store.set('stale', {...profile, checkout: {...profile.checkout, secretKey: 'sk-revoked'}})
    await store.save()
    const key = await runCommand(SandboxDiff, ['--against', 'stale', '--service', 'checkout'])
    expect(key.code, key.stderr).toBe(3)
  })

  it('refuses --yes on a production profile: exit 2, nothing sent', async () => {
    const seen: string[] = []
    const origin = await servers.listen(createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`)
        res.writeHead(500).end()
      }),)
    await saveProfile('live', origin, 'production')
    const r = await runCommand(SandboxDiff, ['--against', 'live', '--yes'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('profile live is production')
    expect(r.stdout).toBe('')

    // --dry-run lists the probes and whether each would run, and sends nothing either
    const plan = await runCommand(SandboxDiff, ['--against', 'live', '--dry-run', '--json'])
    expect(plan.code, plan.stderr).toBe(0)
    const probes = JSON.parse(plan.stdout).probes
    expect(probes.find((p: any) => p.probe === 'checkout.unknown-id')).toMatchObject({runs: 'yes'})
    expect(probes.find((p: any) => p.probe === 'webhook.register')).toMatchObject({runs: 'changes data: runs with --yes'})
    expect(seen).toEqual([])
  })

  it('a clean-up that fails is reported with what it left, on stderr and in the document', async () => {
    const proxy = await driftingProxy(
      servers,
      sandbox.origin,
      (_req, answer) => answer,
      (req) => req.method === 'DELETE' && /\/v1\/webhooks\//.test(req.url!),
    )
    await saveProfile('flaky', proxy)
    const r = await runCommand(SandboxDiff, ['--against', 'flaky', '--service', 'checkout', '--yes', '--json'])
    const report = JSON.parse(r.stdout)
    const [webhook] = await tenantCall('/v1/webhooks')
    expect(webhook.id).toEqual(expect.any(String))
    expect(report.left).toEqual([expect.stringMatching(new RegExp(`^theirs: webhook ${webhook.id} \\(`))])
    expect(r.stderr).toContain(`Warning: the probes left behind: theirs: webhook ${webhook.id}`)
    expect(r.code).toBe(1)
    expect(report.differences).toEqual([{ours: '200', probe: 'webhook.delete', theirs: '500', where: 'status'}])
    await fetch(`${tenant.checkoutBaseUrl}/v1/webhooks/${webhook.id}`, {headers: {authorization: `Basic ${Buffer.from(`${tenant.secretKey}:`).toString('base64')}`}, method: 'DELETE'})
  })
})
