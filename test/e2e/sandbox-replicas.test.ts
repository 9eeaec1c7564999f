/**
 * Two real `opsctl sandbox start --database postgres://...` processes on one throwaway PostgreSQL
 * cluster: what one acknowledges, the other serves; the money rules hold across them; a replica
 * killed with SIGKILL loses nothing it answered; a webhook due when its replica dies is delivered
 * by the other, once. Skipped (with the reason) only where PostgreSQL's binaries are absent outside CI.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import pgDriver from 'pg'
import {Pool, request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {listenOnLoopback} from '../helpers/loopback-servers.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'
import {runCli, type Sandbox, startSandbox} from './harness.js'

const skip = postgresSkipReason()
const TOKEN = 'replica-test-control-token'
const CARD = new URLSearchParams({action: 'pay', cardNumber: '5123456789012346', cvc: '123', expiry: '12/30'}).toString()
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`

async function call(origin: string, path: string, options: {method?: string; key?: string; token?: string; json?: unknown} = {}) {
  const res = await request(`${origin}${path}`, {
    method: (options.method ?? 'GET') as 'GET',
    headers: {
      ...(options.key ? {authorization: basic(options.key)} : {}),
      ...(options.token ? {authorization: `Bearer ${options.token}`} : {}),
      ...(options.json === undefined ? {} : {'content-type': 'application/json'}),
    },
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  })
  const text = await res.body.text()
  return {status: res.statusCode, body: text ? JSON.parse(text) : undefined}
}

async function createCheckout(origin: string, amount = '100.00', key = SANDBOX_KEYS.publicKey): Promise<string> {
  const created = await call(origin, '/checkout/v1/checkouts', {
    method: 'POST',
    key,
    json: {totalAmount: {value: amount, currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'REPLICAS', redirectUrl: {success: 'https://shop.example/ok'}},
  })
  expect(created.status).toBe(200)
  return created.body.checkoutId
}

async function pay(origin: string, id: string): Promise<void> {
  const res = await request(`${origin}/checkout/pay/${id}`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: CARD})
  await res.body.dump()
  expect(res.statusCode).toBe(303)
}

/** Polls `check` until it returns true; the test's timeout bounds the wait. */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50))
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))

describe.skipIf(skip !== undefined)(`two sandbox replicas on one PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let pg: PostgresCluster
  const replicas: Sandbox[] = []
  const start = async () => {
    const replica = await startSandbox([], {OPSCTL_SANDBOX_DATABASE: pg.url, OPSCTL_SANDBOX_TOKEN: TOKEN})
    replicas.push(replica)
    return replica
  }

  beforeAll(async () => {
    pg = await startPostgres()
    // one after the other: the first creates the schema and the default tenant's fresh state
    await start()
    await start()
  })

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()))
    await pg?.stop()
  })

  it('refuses a database it cannot open or a URL that is not PostgreSQL with exit 2, never printing the password', async () => {
    const wrong = new URL(pg.url)
    wrong.password = 'not-the-password-4711'
    const refused = await runCli(['sandbox', 'start', '--port', '0'], {env: {OPSCTL_SANDBOX_DATABASE: wrong.toString()}})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/cannot open the database postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/)
    expect(refused.stdout + refused.stderr).not.toContain('not-the-password-4711')
    const notPostgres = await runCli(['sandbox', 'start', '--port', '0', '--database', 'mysql://root:hunter2hunter2@127.0.0.1/x'])
    expect([notPostgres.code, notPostgres.stderr]).toEqual([2, expect.stringContaining('--database must be a PostgreSQL URL')])
    expect(notPostgres.stderr).not.toContain('hunter2hunter2')
    const both = await runCli(['sandbox', 'start', '--port', '0', '--state', 'x.db', '--database', pg.url])
    expect(both.code).toBe(2)
    expect(both.stderr).not.toContain('sandbox-test-password')
  })

  it('serves through one replica what the other acknowledged: a checkout created on A is read, paid and voided on B', async () => {
    const [a, b] = replicas
    const id = await createCheckout(a.origin)
    expect((await call(b.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})).body).toMatchObject({id, paymentStatus: 'PENDING_PAYMENT'})
    await pay(b.origin, id)
    expect((await call(a.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})).body.paymentStatus).toBe('PAYMENT_SUCCESS')
    const voided = await call(b.origin, `/checkout/v1/checkouts/${id}`, {method: 'DELETE', key: SANDBOX_KEYS.secretKey, json: {reason: 'replicas'}})
    expect(voided.body).toMatchObject({voidStatus: 'SUCCESS'})
    expect((await call(a.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})).body.paymentStatus).toBe('VOIDED')
    // the password of the database URL is never printed
    expect(a.stderr() + b.stderr()).not.toContain('sandbox-test-password')
  })

  it('gives exactly one refund for 10 concurrent full refunds of one checkout spread over both replicas', async () => {
    const [a, b] = replicas
    const id = await createCheckout(a.origin, '250.00')
    await pay(a.origin, id)
    // past the day of the payment: a refund, not a void
    await a.control('/clock', {advance: '48h'})
    let answers: {status: number; body: {status?: string}}[] = []
    // ten connections open beforehand (five to each replica), so the ten refunds leave at once and are under way together
    const pools = [a, b].map((replica) => new Pool(replica.origin, {connections: 5}))
    try {
      const send = (pool: Pool, method: 'GET' | 'POST', path: string, body?: unknown) =>
        pool.request({
          method,
          path,
          headers: {authorization: basic(SANDBOX_KEYS.secretKey), ...(body ? {'content-type': 'application/json'} : {})},
          body: body ? JSON.stringify(body) : undefined,
        })
      await Promise.all(pools.flatMap((pool) => Array.from({length: 5}, async () => (await send(pool, 'GET', `/checkout/v1/checkouts/${id}`)).body.dump())))
      answers = await Promise.all(
        Array.from({length: 10}, async (_, i) => {
          const res = await send(pools[i % 2], 'POST', `/checkout/v1/checkouts/${id}/refunds`, {reason: `race ${i}`, amount: {value: '250.00', currency: 'PHP'}})
          return {status: res.statusCode, body: (await res.body.json()) as {status?: string}}
        }),
      )
    } finally {
      await Promise.all(pools.map((pool) => pool.close()))
    }

    const succeeded = answers.filter((r) => r.status === 200 && r.body.status === 'SUCCESS')
    expect(succeeded).toHaveLength(1)
    for (const refused of answers.filter((r) => !(r.status === 200 && r.body.status === 'SUCCESS'))) expect(refused.status).toBe(400)
    const refunds = await call(b.origin, `/checkout/v1/checkouts/${id}/refunds`, {key: SANDBOX_KEYS.secretKey})
    expect(refunds.body.filter((r: {status: string}) => r.status === 'SUCCESS')).toHaveLength(1)
  })

  it('moves the clock of every replica: advanced through one, the other answers with the new date', async () => {
    const [a, b] = replicas
    const moved = await b.control('/clock', {advance: '24h'})
    const seenByA = await a.control('/clock')
    expect(Date.parse(seenByA.now) - Date.parse(moved.now)).toBeLessThan(60_000)
    expect(Date.parse(seenByA.now)).toBeGreaterThan(Date.now() + 23 * 3_600_000)
  })

  it("exports a tenant's state through one replica and imports it into another tenant through the other, all or nothing", async () => {
    const [a, b] = replicas
    const from = await a.control('/tenants', {seed: true})
    const into = await b.control('/tenants', {})
    const path = (tenant: {id: string}) => `/t/${tenant.id}`
    const id = await createCheckout(a.origin + path(from), '12.00', from.publicKey)
    const exportOf = async (origin: string, tenant: {id: string}) => {
      const res = await request(`${origin}${path(tenant)}/__sandbox/state`, {headers: {authorization: `Bearer ${TOKEN}`}})
      expect(res.statusCode).toBe(200)
      return res.body.json()
    }

    const document = await exportOf(a.origin, from)
    const empty = await exportOf(b.origin, into)
    const bad = await request(`${b.origin}${path(into)}/__sandbox/state`, {
      method: 'PUT',
      headers: {authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json'},
      body: JSON.stringify({...(document as object), checkout: {checkouts: 'not a table'}}),
    })
    expect(bad.statusCode).toBe(400)
    await bad.body.dump()
    // the health section was valid and loaded first: rolled back with the rest
    expect(await exportOf(a.origin, into)).toEqual(empty)
    const imported = await request(`${b.origin}${path(into)}/__sandbox/state`, {
      method: 'PUT',
      headers: {authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json'},
      body: JSON.stringify(document),
    })
    await imported.body.dump()
    expect(imported.statusCode).toBe(200)
    const read = await call(a.origin, `${path(into)}/checkout/v1/checkouts/${id}`, {key: into.secretKey})
    expect(read.body).toMatchObject({id, totalAmount: {value: '12.00'}})
  })

  it('applies a fault injected through one replica to the request that reaches the other, once', async () => {
    const [a, b] = replicas
    const id = await createCheckout(a.origin)
    await a.control('/faults', {next: [{op: 'getCheckout', kind: '500'}]})
    expect((await b.control('/faults')).pending).toEqual([{op: 'getCheckout', kind: '500'}])
    const reads = await Promise.all([a, b, a, b].map((replica) => call(replica.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})))
    expect(reads.map((r) => r.status).sort()).toEqual([200, 200, 200, 500])
    expect((await a.control('/faults')).pending).toEqual([])
  })

  it('applies a fault on a write injected through one replica to one write through either, once: that write keeps nothing', async () => {
    const [a, b] = replicas
    await a.control('/faults', {next: [{op: 'initiateCheckout', kind: '500'}]})
    const body = {items: [{name: 'Tea'}], requestReferenceNumber: 'FAULTED', totalAmount: {currency: 'PHP', value: '3.00'}}
    const creates = await Promise.all([b, a, b, a].map((replica) => call(replica.origin, '/checkout/v1/checkouts', {json: body, key: SANDBOX_KEYS.publicKey, method: 'POST'})))
    expect(creates.map((r) => r.status).sort()).toEqual([200, 200, 200, 500])
    expect((await b.control('/faults')).pending).toEqual([])
    const rows = new pgDriver.Client({connectionString: pg.url})
    await rows.connect()
    try {
      const made = await rows.query(`SELECT count(*) AS n FROM documents WHERE collection = 'checkout.checkouts' AND doc LIKE '%"FAULTED"%'`)
      expect(Number(made.rows[0].n)).toBe(3)
    } finally {
      await rows.end()
    }
  })

  it("holds no tenant lock while a fault delays a write: the tenant's other writes go on through either replica", async () => {
    const [a, b] = replicas
    await a.control('/faults', {next: [{op: 'initiateCheckout', kind: 'delay', ms: 5000}]})
    const finished: string[] = []
    const delayed = createCheckout(a.origin).then(() => finished.push('delayed'))
    await until(async () => (await a.control('/faults')).pending.length === 0)
    // a write of the same tenant through the other replica: a refund of nothing, refused by its rule after it took the lock
    const other = await call(b.origin, '/checkout/v1/checkouts/chk_missing/refunds', {
      method: 'POST',
      key: SANDBOX_KEYS.secretKey,
      json: {reason: 'lock', amount: {value: '1.00', currency: 'PHP'}},
    })
    finished.push('other')
    expect(other.status).toBe(404)
    await delayed
    expect(finished).toEqual(['other', 'delayed'])
  })

  it("lets go of the tenant's lock when the client of a write goes away: the other replica's writes go on", async () => {
    const [a] = replicas
    const c = await startSandbox([], {OPSCTL_SANDBOX_DATABASE: pg.url, OPSCTL_SANDBOX_TOKEN: TOKEN})
    const db = new pgDriver.Client({connectionString: pg.url})
    await db.connect()
    try {
      const tenant = await c.control('/tenants', {seed: true})
      const events = async () => Number((await db.query('SELECT count(*) AS n FROM events WHERE tenant = $1', [tenant.id])).rows[0].n)
      const before = await events()
      // generating 100,000 events takes seconds; the request holds its tenant's lock until its answer
      const client = new AbortController()
      const abandoned = request(`${c.origin}/t/${tenant.id}/__sandbox/health/events`, {
        method: 'POST',
        signal: client.signal,
        headers: {authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json'},
        body: JSON.stringify({email: 'patient@demo-clinic.test', count: 100_000}),
      }).catch(() => undefined)
      await until(async () => (await events()) > before)
      client.abort()
      await abandoned
      // a write of the same tenant through the other replica: it waits for the lock, which the abandoned request no longer holds
      const moved = await call(a.origin, `/t/${tenant.id}/__sandbox/clock`, {method: 'POST', json: {advance: '1m'}, token: TOKEN})
      expect(moved.status).toBe(200)
      // had the lock been kept, the clock would have moved only once the generation was done
      expect(await events()).toBeLessThan(before + 100_000)
    } finally {
      await db.end()
      await c.stop('SIGKILL')
    }
  })

  it('runs smoke against a tenant through each replica (sandbox tenant create --save-profile, then smoke -p)', async () => {
    for (const replica of replicas) {
      const configDir = replica.configDir
      const env = {OPSCTL_CONFIG_DIR: configDir, OPSCTL_SANDBOX_TOKEN: TOKEN}
      const created = await runCli(['sandbox', 'tenant', 'create', '--sandbox-url', replica.origin, '--save-profile', 'team', '--json'], {env})
      expect(created.code, created.stderr).toBe(0)
      const smoke = await runCli(['smoke', '-p', 'team'], {env})
      expect(smoke.code, smoke.stdout + smoke.stderr).toBe(0)
    }
  })
  it('removes a tenant created with --ttl 2s a few seconds later: its URLs refused and not listed, through either replica', async () => {
    for (const [maker, other] of [replicas, [...replicas].reverse()]) {
      const env = {OPSCTL_CONFIG_DIR: maker.configDir, OPSCTL_SANDBOX_TOKEN: TOKEN}
      const created = await runCli(['sandbox', 'tenant', 'create', '--sandbox-url', maker.origin, '--ttl', '2s', '--json'], {env})
      expect(created.code, created.stderr).toBe(0)
      const tenant = JSON.parse(created.stdout)
      expect(Date.parse(tenant.expiresAt) - Date.parse(tenant.createdAt)).toBeGreaterThanOrEqual(2000)
      const listed = async (origin: string) => (await call(origin, '/__sandbox/tenants', {token: TOKEN})).body.tenants.map((t: {id: string}) => t.id)
      expect(await listed(other.origin)).toContain(tenant.id)
      const id = await createCheckout(`${other.origin}/t/${tenant.id}`, '10.00', tenant.publicKey)

      // polled, not slept: gone once its TTL has passed and a replica looked
      await until(async () => !(await listed(other.origin)).includes(tenant.id))
      expect(await listed(maker.origin)).not.toContain(tenant.id)
      for (const origin of [maker.origin, other.origin]) {
        const read = await call(origin, `/t/${tenant.id}/checkout/v1/checkouts/${id}`, {key: tenant.secretKey})
        expect([401, 404]).toContain(read.status)
        // a write, which reads its tenant only under its lock on a replica that has it open, is refused too
        const written = await call(origin, `/t/${tenant.id}/checkout/v1/checkouts/${id}/void`, {json: {reason: 'gone'}, key: tenant.secretKey, method: 'POST'})
        expect([401, 404]).toContain(written.status)
      }

      const rows = new pgDriver.Client({connectionString: pg.url})
      await rows.connect()
      try {
        await until(async () => Number((await rows.query('SELECT count(*) AS n FROM documents WHERE tenant = $1', [tenant.id])).rows[0].n) === 0)
      } finally {
        await rows.end()
      }
    }
  })

  /**
   * One more replica, killed with SIGKILL once `killAfter` writes were answered, with other writes in
   * flight. Every checkout it answered (created; paid) is then on the surviving replica as answered.
   */
  async function killDuringBurst(): Promise<number> {
    const victim = await startSandbox([], {OPSCTL_SANDBOX_DATABASE: pg.url, OPSCTL_SANDBOX_TOKEN: TOKEN})
    const killAfter = randomInt(3, 12)
    const acknowledged = new Map<string, 'PAYMENT_SUCCESS' | 'PENDING_PAYMENT'>()
    const life = {answers: 0, killed: false}
    const answered = () => {
      if (++life.answers >= killAfter && !life.killed) {
        life.killed = true
        victim.process.kill('SIGKILL')
      }
    }

    const lane = async () => {
      while (!life.killed) {
        const id = await createCheckout(victim.origin)
        acknowledged.set(id, 'PENDING_PAYMENT')
        answered()
        if (life.killed) return
        await pay(victim.origin, id)
        acknowledged.set(id, 'PAYMENT_SUCCESS')
        answered()
      }
    }

    await Promise.all(Array.from({length: 4}, () => lane().catch((error: unknown) => {
      // a write cut by the kill is expected; a wrong answer is not
      if (!life.killed || (error instanceof Error && error.name === 'AssertionError')) throw error
    })))
    await victim.stop()
    const [survivor] = replicas
    for (const [id, status] of acknowledged) {
      const res = await call(survivor.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})
      expect([id, res.status]).toEqual([id, 200])
      // a payment sent but never answered may have been committed: acknowledged PENDING may show as paid, never the reverse
      expect(status === 'PAYMENT_SUCCESS' ? [status] : ['PENDING_PAYMENT', 'PAYMENT_SUCCESS']).toContain(res.body.paymentStatus)
    }

    return acknowledged.size
  }

  for (let chain = 0; chain < 4; chain++) {
    it(`loses no acknowledged write when a replica is killed with SIGKILL during a burst of writes (kills ${chain * 5 + 1}-${chain * 5 + 5} of 20)`, async () => {
      for (let kill = 0; kill < 5; kill++) expect(await killDuringBurst()).toBeGreaterThan(0)
    })
  }

  it('stops on SIGTERM under a burst of writes and reads: exits 0, and every write it answered is there', async () => {
    const stopping = await startSandbox([], {OPSCTL_SANDBOX_DATABASE: pg.url, OPSCTL_SANDBOX_TOKEN: TOKEN})
    const acknowledged: string[] = []
    const life = {stopped: false}
    const lane = async () => {
      while (!life.stopped) {
        const id = await createCheckout(stopping.origin)
        acknowledged.push(id)
        await call(stopping.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})
      }
    }

    const lanes = Array.from({length: 8}, () => lane().catch(() => undefined))
    await until(() => acknowledged.length >= 20)
    // the lanes go on sending while it stops; each ends at its first refused connection
    expect(await stopping.stop('SIGTERM')).toBe(0)
    life.stopped = true
    await Promise.all(lanes)
    const [survivor] = replicas
    for (const id of acknowledged) expect([id, (await call(survivor.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})).status]).toEqual([id, 200])
  })

  it("expires an unpaid checkout once as its tenant's clock passes the hour: the clock moved through one replica, CHECKOUT_DROPOUT sent once, the log the same through both", async () => {
    const [a, b] = replicas
    const received: string[] = []
    const receiver = await listenOnLoopback(
      createServer((req: IncomingMessage, res: ServerResponse) => {
        let body = ''
        req.on('data', (chunk) => (body += chunk))
        req.on('end', () => {
          received.push(`${req.headers['x-checkout-event']} ${JSON.parse(body).id}`)
          res.writeHead(200).end()
        })
      }),
    )
    const db = new pgDriver.Client({connectionString: pg.url})
    await db.connect()
    try {
      const tenant = await a.control('/tenants', {})
      const base = `/t/${tenant.id}`
      const hook = await call(a.origin, `${base}/checkout/v1/webhooks`, {method: 'POST', key: tenant.secretKey, json: {name: 'CHECKOUT_DROPOUT', callbackUrl: `${receiver.origin}/dropout`}})
      expect(hook.status).toBe(200)
      const id = await createCheckout(a.origin + base, '42.00', tenant.publicKey)
      expect((await call(b.origin, `${base}/__sandbox/clock`, {method: 'POST', token: TOKEN, json: {advance: '61m'}})).status).toBe(200)
      const logOf = async (origin: string) => (await call(origin, `${base}/__sandbox/webhook-deliveries`, {token: TOKEN})).body.deliveries
      await until(async () => (await logOf(a.origin)).length > 0)
      await until(async () => Number((await db.query('SELECT count(*) AS n FROM deliveries WHERE tenant = $1', [tenant.id])).rows[0].n) === 0)
      expect(received).toEqual([`CHECKOUT_DROPOUT ${id}`])
      expect(await logOf(b.origin)).toEqual(await logOf(a.origin))
      expect((await logOf(b.origin)).map((d: {event: string; outcome: string}) => [d.event, d.outcome])).toEqual([['CHECKOUT_DROPOUT', 'delivered']])
    } finally {
      await db.end()
      await receiver.close()
    }
  })

  it('delivers once, through the other replica, a webhook that was due when its replica died', async () => {
    const received: {status: number; id: string}[] = []
    const held: ServerResponse[] = []
    /** the delivery id of each request, held or answered */
    const deliveryIds: unknown[] = []
    let answer: 'hold' | 200 = 'hold'
    const receiver = await listenOnLoopback(
      createServer((req: IncomingMessage, res: ServerResponse) => {
        let body = ''
        req.on('data', (chunk) => (body += chunk))
        req.on('end', () => {
          deliveryIds.push(req.headers['x-checkout-delivery-id'])
          if (answer === 'hold') {
            // the replica's attempt hangs here: the delivery is claimed and under way when the replica dies
            held.push(res)
            return
          }

          received.push({id: JSON.parse(body).id, status: 200})
          res.writeHead(200).end()
        })
      }),
    )
    const dying = await startSandbox([], {OPSCTL_SANDBOX_DATABASE: pg.url, OPSCTL_SANDBOX_TOKEN: TOKEN})
    const db = new pgDriver.Client({connectionString: pg.url})
    await db.connect()
    try {
      // a tenant of its own, so the other tests' payments raise no event here
      const tenant = await dying.control('/tenants', {})
      const path = new URL(tenant.checkoutBaseUrl).pathname
      const hook = await call(dying.origin, `${path}/v1/webhooks`, {
        method: 'POST',
        key: tenant.secretKey,
        json: {name: 'CHECKOUT_SUCCESS', callbackUrl: `${receiver.origin}/hooks/paid`},
      })
      expect(hook.status).toBe(200)
      const id = await createCheckout(dying.origin + path.replace(/\/checkout$/, ''), '42.00', tenant.publicKey)
      await pay(dying.origin + path.replace(/\/checkout$/, ''), id)
      await until(() => held.length > 0)
      await dying.stop('SIGKILL')
      for (const res of held) res.destroy()
      answer = 200
      // the other replicas take it over once the dead one's claim lapses
      await until(() => received.length > 0)
      // its deliveries are done (the checkout's expiry, due in an hour, stays)
      const deliveries = `SELECT count(*) AS n FROM deliveries WHERE tenant = $1 AND doc NOT LIKE '%"kind":"job"%'`
      await until(async () => Number((await db.query(deliveries, [tenant.id])).rows[0].n) === 0)
      expect(received).toEqual([{id, status: 200}])
      // what the dead replica sent and what the other resent carry one delivery id: a receiver can deduplicate
      expect(new Set(deliveryIds).size).toBe(1)
      expect(deliveryIds[0]).toEqual(expect.any(String))
    } finally {
      await db.end()
      await receiver.close()
    }
  })
})
