/**
 * Tenants of one sandbox (core/tenants.ts): each under /t/<id>, with its own clock, keys, users,
 * sessions, checkouts, faults and state; nothing of one is visible from another, and the default
 * tenant (the unprefixed URLs) is what a sandbox without tenants serves.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {MAX_TENANTS} from '../../src/sandbox/core/tenants.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {controlHeaders} from '../helpers/control.js'
import {openDatabase,sqliteDb, statement} from '../helpers/sqlite.js'

const V = {'x-ph-api-version': '3.14.0'}
const JSON_TYPE = {'content-type': 'application/json'}
const HOUR = 3_600_000
const CHECKOUT = {
  totalAmount: {value: '150.00', currency: 'PHP'},
  items: [{name: 'Tea', quantity: '2', amount: {value: '75.00'}, totalAmount: {value: '150.00'}}],
  requestReferenceNumber: 'order-1',
}

interface CreatedTenant {
  id: string
  healthBaseUrl: string
  checkoutBaseUrl: string
  publicKey: string
  secretKey: string
  clock: string
  createdAt: string
  seeded: boolean
}

describe('sandbox tenants', () => {
  let sb: RunningSandbox
  beforeAll(async () => {
    sb = await createSandbox({port: 0})
  })
  afterAll(() => sb.close())

  const control = async (method: 'DELETE' | 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await sb.app.inject({method, url, headers: {...controlHeaders(sb.token), ...(body === undefined ? {} : JSON_TYPE)}, payload: body === undefined ? undefined : JSON.stringify(body)})
    return {status: res.statusCode, json: res.body ? res.json() : undefined}
  }

  const createTenant = async (body: unknown = {}): Promise<CreatedTenant> => {
    const res = await control('POST', '/__sandbox/tenants', body)
    expect(res.status).toBe(201)
    return res.json
  }

  const path = (t: CreatedTenant | undefined) => (t ? `/t/${t.id}` : '')
  const keysOf = (t: CreatedTenant | undefined) => (t ? t : SANDBOX_KEYS)
  const clockOf = async (t?: CreatedTenant) => Date.parse((await control('GET', `${path(t)}/__sandbox/clock`)).json.now)
  const createCheckout = (t: CreatedTenant | undefined, key: string) =>
    sb.app.inject({method: 'POST', url: `${path(t)}/checkout/v1/checkouts`, headers: {authorization: basicAuth(key), ...JSON_TYPE}, payload: CHECKOUT})
  const getCheckout = (t: CreatedTenant | undefined, key: string, id: string) =>
    sb.app.inject({method: 'GET', url: `${path(t)}/checkout/v1/checkouts/${id}`, headers: {authorization: basicAuth(key)}})
  const signUp = (t: CreatedTenant | undefined, email: string) =>
    sb.app.inject({
      method: 'POST',
      url: `${path(t)}/api/users`,
      headers: {...V, ...JSON_TYPE},
      payload: {role: 'patient', email, password: 'a-long-password', givenName: 'Ana', familyName: 'Reyes'},
    })
  const me = (t: CreatedTenant | undefined, cookie: string) => sb.app.inject({method: 'GET', url: `${path(t)}/api/users/me`, headers: {...V, cookie}})

  it('creates a tenant with its own base URLs, keys and clock, and lists it without its keys', async () => {
    const t = await createTenant()
    expect(t).toEqual({
      id: expect.stringMatching(/^tn_[\da-f]{16}$/),
      healthBaseUrl: `http://localhost/t/${t.id}`,
      checkoutBaseUrl: `http://localhost/t/${t.id}/checkout`,
      publicKey: expect.stringMatching(/^pk-/),
      secretKey: expect.stringMatching(/^sk-/),
      clock: expect.any(String),
      createdAt: expect.any(String),
      seeded: false,
    })
    expect(t.publicKey).not.toBe(SANDBOX_KEYS.publicKey)
    const listed = (await control('GET', '/__sandbox/tenants')).json.tenants.find((x: {id: string}) => x.id === t.id)
    expect(listed).toEqual({id: t.id, healthBaseUrl: t.healthBaseUrl, checkoutBaseUrl: t.checkoutBaseUrl, clock: expect.any(String), createdAt: t.createdAt, seeded: false})
    // the state holds digests of the keys, never the keys
    const rows = statement(sqliteDb(sb.store), 'SELECT doc FROM documents').all() as {doc: string}[]
    expect(rows.some((r) => r.doc.includes(t.secretKey) || r.doc.includes(t.publicKey))).toBe(false)
  })

  it('moves one tenant\'s clock without moving another\'s or the default one\'s', async () => {
    const a = await createTenant()
    const b = await createTenant()
    const moved = await control('POST', `/t/${a.id}/__sandbox/clock`, {advance: '48h'})
    expect(moved.status).toBe(200)
    expect((await clockOf(a)) - Date.now()).toBeGreaterThan(47 * HOUR)
    expect(Math.abs((await clockOf(b)) - Date.now())).toBeLessThan(HOUR)
    expect(Math.abs((await clockOf()) - Date.now())).toBeLessThan(HOUR)
    // the Date header of a tenant's answers is its clock's
    const answer = await getCheckout(a, a.secretKey, 'chk_none')
    expect(Date.parse(answer.headers.date as string) - Date.now()).toBeGreaterThan(47 * HOUR)
  })

  it('answers 401 to another tenant\'s keys and 404 to its ids, the default tenant included', async () => {
    const a = await createTenant()
    const b = await createTenant()
    const created = await createCheckout(a, a.publicKey)
    expect(created.statusCode).toBe(200)
    const {checkoutId, redirectUrl} = created.json()
    expect(redirectUrl).toMatch(new RegExp(`/t/${a.id}/checkout/pay/${checkoutId}$`))
    expect((await getCheckout(a, a.secretKey, checkoutId)).statusCode).toBe(200)

    for (const [tenant, key] of [
      [b, a.secretKey],
      [undefined, a.secretKey],
      [a, b.secretKey],
      [a, SANDBOX_KEYS.secretKey],
    ] as const) {
      const res = await getCheckout(tenant, key, checkoutId)
      expect([tenant?.id, res.statusCode, res.json().code]).toEqual([tenant?.id, 401, 'K003'])
    }

    expect((await createCheckout(b, a.publicKey)).statusCode).toBe(401)
    for (const tenant of [b, undefined]) {
      const res = await getCheckout(tenant, keysOf(tenant).secretKey, checkoutId)
      expect([tenant?.id, res.statusCode]).toEqual([tenant?.id, 404])
    }
  })

  it('keeps users and sessions apart: the same email in two tenants, and a session of one is 401 in another', async () => {
    const a = await createTenant()
    const b = await createTenant()
    const inA = await signUp(a, 'ana@example.com')
    expect(inA.statusCode).toBe(201)
    expect((await signUp(a, 'ana@example.com')).json()).toMatchObject({code: 'EMAIL_TAKEN'})
    expect((await signUp(b, 'ana@example.com')).statusCode).toBe(201)
    const cookie = String(inA.headers['set-cookie']).split(';')[0]
    expect((await me(a, cookie)).statusCode).toBe(200)
    expect((await me(b, cookie)).statusCode).toBe(401)
    expect((await me(undefined, cookie)).statusCode).toBe(401)
  })

  it('scopes faults, reset and export to the tenant the URL names', async () => {
    const a = await createTenant()
    const b = await createTenant()
    const inB = (await createCheckout(b, b.publicKey)).json().checkoutId
    expect((await control('POST', `/t/${a.id}/__sandbox/faults`, {next: [{op: '*', kind: '500'}]})).status).toBe(200)
    expect((await control('GET', `/t/${b.id}/__sandbox/faults`)).json).toEqual({pending: []})
    expect((await createCheckout(b, b.publicKey)).statusCode).toBe(200)
    expect((await createCheckout(a, a.publicKey)).statusCode).toBe(500)

    expect((await control('POST', `/t/${a.id}/__sandbox/reset`)).status).toBe(200)
    expect((await getCheckout(b, b.secretKey, inB)).statusCode).toBe(200)
    const exported = (await control('GET', `/t/${b.id}/__sandbox/state`)).json
    expect(exported.checkout.checkouts.map(([id]: [string]) => id)).toEqual([inB, expect.any(String)])
    expect((await control('GET', `/t/${a.id}/__sandbox/state`)).json.checkout.checkouts).toEqual([])
  })

  it('grants a page CORS on a tenant\'s public route with its public key, never with its secret key', async () => {
    const a = await createTenant()
    const url = `/t/${a.id}/checkout/v1/checkouts`
    const page = {origin: 'https://shop.example'}
    const preflight = await sb.app.inject({method: 'OPTIONS', url, headers: {...page, 'access-control-request-method': 'POST'}})
    expect([preflight.statusCode, preflight.headers['access-control-allow-origin']]).toEqual([204, '*'])
    const post = (key: string) => sb.app.inject({method: 'POST', url, headers: {...page, authorization: basicAuth(key), ...JSON_TYPE}, payload: CHECKOUT})
    const publicAnswer = await post(a.publicKey)
    expect([publicAnswer.statusCode, publicAnswer.headers['access-control-allow-origin']]).toEqual([200, '*'])
    const secretAnswer = await post(a.secretKey)
    expect([secretAnswer.statusCode, secretAnswer.headers['access-control-allow-origin']]).toEqual([401, undefined])
  })

  it('serves a tenant\'s hosted page under its own prefix, and its form pays the tenant\'s checkout', async () => {
    const a = await createTenant()
    const {checkoutId} = (await createCheckout(a, a.publicKey)).json()
    const page = await sb.app.inject({method: 'GET', url: `/t/${a.id}/checkout/pay/${checkoutId}`})
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain(`action="/t/${a.id}/checkout/pay/${checkoutId}"`)
    const paid = await sb.app.inject({
      method: 'POST',
      url: `/t/${a.id}/checkout/pay/${checkoutId}`,
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      payload: 'action=pay&cardNumber=5123456789012346&expiry=12%2F30&cvc=123',
    })
    expect(paid.statusCode).toBeLessThan(400)
    expect((await getCheckout(a, a.secretKey, checkoutId)).json().paymentStatus).toBe('PAYMENT_SUCCESS')
  })

  it('seeds a tenant on request, and deletes a tenant with every row of it', async () => {
    const a = await createTenant({seed: true})
    expect(a.seeded).toBe(true)
    const seeded = (await control('GET', `/t/${a.id}/__sandbox/checkout/seeded`)).json.checkouts
    expect(seeded).toHaveLength(2)
    expect((await signUp(a, 'patient@demo-clinic.test')).json()).toMatchObject({code: 'EMAIL_TAKEN'})
    const rows = () => statement(sqliteDb(sb.store), 'SELECT (SELECT count(*) FROM documents WHERE tenant = ?) + (SELECT count(*) FROM events WHERE tenant = ?) AS n').get(a.id, a.id) as {n: number}
    expect(rows().n).toBeGreaterThan(0)

    expect(await control('DELETE', `/__sandbox/tenants/${a.id}`)).toEqual({status: 200, json: {deleted: a.id}})
    expect(rows().n).toBe(0)
    expect((await control('GET', '/__sandbox/tenants')).json.tenants.map((t: {id: string}) => t.id)).not.toContain(a.id)
    expect((await getCheckout(a, a.secretKey, seeded[0].id)).statusCode).toBe(404)
    expect((await control('GET', `/t/${a.id}/__sandbox/clock`)).status).toBe(404)
    expect((await control('DELETE', `/__sandbox/tenants/${a.id}`)).status).toBe(404)
  })

  it('expires a tenant created with a TTL (SQLite): refused and unlisted once it has passed, then removed with its rows', async () => {
    for (const ttlSeconds of [0, 1.5, -1, '2s', 31 * 86_400]) {
      const refused = await control('POST', '/__sandbox/tenants', {ttlSeconds})
      expect([ttlSeconds, refused.status, refused.json.message]).toEqual([ttlSeconds, 400, expect.stringContaining('"ttlSeconds" must be a whole number of seconds')])
    }

    const t = await createTenant({ttlSeconds: 1})
    expect(Date.parse((t as CreatedTenant & {expiresAt: string}).expiresAt) - Date.now()).toBeLessThanOrEqual(1000)
    const id = (await createCheckout(t, t.publicKey)).json().checkoutId
    const listed = async () => (await control('GET', '/__sandbox/tenants')).json.tenants.map((x: {id: string}) => x.id)
    expect(await listed()).toContain(t.id)
    // polled, not slept: the TTL is real time
    while ((await listed()).includes(t.id)) await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await getCheckout(t, t.secretKey, id)).statusCode).toBe(404)
    const rows = () => statement(sqliteDb(sb.store), 'SELECT count(*) AS n FROM documents WHERE tenant = ?').get(t.id) as {n: number}
    while (rows().n > 0) await new Promise((resolve) => setTimeout(resolve, 50))
  })

  it('guards tenant creation and deletion with the control token, serves them only at the sandbox\'s own control plane, and refuses malformed ids', async () => {
    const a = await createTenant()
    expect((await sb.app.inject({method: 'POST', url: '/__sandbox/tenants', headers: JSON_TYPE, payload: '{}'})).statusCode).toBe(401)
    expect((await sb.app.inject({method: 'DELETE', url: `/__sandbox/tenants/${a.id}`})).statusCode).toBe(401)
    expect((await sb.app.inject({method: 'GET', url: `/t/${a.id}/__sandbox/clock`})).statusCode).toBe(401)
    const fromPage = await sb.app.inject({method: 'GET', url: `/t/${a.id}/__sandbox/state`, headers: {...controlHeaders(sb.token), origin: 'https://evil.example'}})
    expect(fromPage.statusCode).toBe(403)
    expect((await control('POST', `/t/${a.id}/__sandbox/tenants`, {})).status).toBe(404)
    expect((await control('DELETE', '/__sandbox/tenants/__proto__')).status).toBe(400)
    for (const url of [`/t/${a.id.toUpperCase()}/api/groups/demo-clinic/config`, '/t/__proto__/api/groups/demo-clinic/config', '/t/tn_0000000000000000/api/groups/demo-clinic/config', `/t/${a.id}%2F../api/groups/demo-clinic/config`]) {
      const res = await sb.app.inject({method: 'GET', url, headers: V})
      expect([url, res.statusCode]).toEqual([url, 404])
    }

    expect((await sb.app.inject({method: 'GET', url: `/t/${a.id}/api/groups/demo-clinic/config`, headers: V})).statusCode).toBe(200)
  })
})

describe('sandbox tenants: the limit', () => {
  let sb: RunningSandbox
  beforeAll(async () => {
    sb = await createSandbox({port: 0})
  })
  afterAll(() => sb.close())

  it(`creates at most ${MAX_TENANTS} tenants, then answers 409 until one is deleted`, async () => {
    const create = () => sb.app.inject({method: 'POST', url: '/__sandbox/tenants', headers: {...controlHeaders(sb.token), ...JSON_TYPE}, payload: '{}'})
    const ids: string[] = []
    for (let i = 0; i < MAX_TENANTS; i++) ids.push((await create()).json().id)
    const refused = await create()
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toEqual({code: 'CONFLICT', message: expect.stringContaining(`${MAX_TENANTS} tenants`)})
    expect(refused.json().message).toMatch(/sandbox tenant delete ID.*--ttl/)
    await sb.app.inject({method: 'DELETE', url: `/__sandbox/tenants/${ids[0]}`, headers: controlHeaders(sb.token)})
    expect((await create()).statusCode).toBe(201)
  })
})

describe('sandbox tenants in a state file', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, {force: true, recursive: true})
  })

  it('keeps a tenant, its keys, clock and data across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-tenants-'))
    dirs.push(dir)
    const stateFile = join(dir, 'state.db')
    let sb = await createSandbox({port: 0, stateFile})
    const headers = {...controlHeaders(sb.token), ...JSON_TYPE}
    const t = (await sb.app.inject({method: 'POST', url: '/__sandbox/tenants', headers, payload: '{}'})).json()
    await sb.app.inject({method: 'POST', url: `/t/${t.id}/__sandbox/clock`, headers, payload: JSON.stringify({advance: '30d'})})
    const created = await sb.app.inject({method: 'POST', url: `/t/${t.id}/checkout/v1/checkouts`, headers: {authorization: basicAuth(t.publicKey), ...JSON_TYPE}, payload: CHECKOUT})
    await sb.close()

    sb = await createSandbox({port: 0, stateFile})
    try {
      const got = await sb.app.inject({method: 'GET', url: `/t/${t.id}/checkout/v1/checkouts/${created.json().checkoutId}`, headers: {authorization: basicAuth(t.secretKey)}})
      expect(got.statusCode).toBe(200)
      const now = Date.parse((await sb.app.inject({method: 'GET', url: `/t/${t.id}/__sandbox/clock`, headers: controlHeaders(sb.token)})).json().now)
      expect(now - Date.now()).toBeGreaterThan(29 * 24 * HOUR)
    } finally {
      await sb.close()
    }
  })

  it('drops at start the rows of a tenant that no longer exists (written by a request still under way when it was deleted)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-tenants-'))
    dirs.push(dir)
    const stateFile = join(dir, 'state.db')
    let sb = await createSandbox({port: 0, stateFile})
    await sb.close()
    const db = openDatabase(stateFile)
    statement(db, `INSERT INTO documents (tenant, collection, key, doc) VALUES ('tn_00000000000000aa', 'checkout.checkouts', 'chk_1', '{}')`).run()
    db.close()
    sb = await createSandbox({port: 0, stateFile})
    try {
      expect(statement(sqliteDb(sb.store), `SELECT count(*) AS n FROM documents WHERE tenant = 'tn_00000000000000aa'`).get()).toEqual({n: 0})
    } finally {
      await sb.close()
    }
  })

  it('opens a database of schema 1 with its rows as the default tenant\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-tenants-'))
    dirs.push(dir)
    const stateFile = join(dir, 'state.db')
    const db = openDatabase(stateFile)
    db.exec(`CREATE TABLE documents (seq INTEGER PRIMARY KEY, collection TEXT NOT NULL, key TEXT NOT NULL, doc TEXT NOT NULL, UNIQUE (collection, key));
      CREATE TABLE events (user_id TEXT NOT NULL, id TEXT NOT NULL, date TEXT NOT NULL, medication_type TEXT, medication_id TEXT, source TEXT,
        night_event INTEGER, preemptive INTEGER NOT NULL, address_confirmed INTEGER NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (user_id, id));
      PRAGMA user_version = 1`)
    const checkout = {
      id: 'chk_old',
      ...CHECKOUT,
      status: 'CREATED',
      paymentStatus: 'PENDING_PAYMENT',
      isAutoRedirect: true,
      refundedAmount: '0.00',
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      expiredAt: new Date(Date.now() + HOUR).toISOString(),
    }
    statement(db, `INSERT INTO documents (collection, key, doc) VALUES ('checkout.checkouts', 'chk_old', ?)`).run(JSON.stringify(checkout))
    db.close()

    const sb = await createSandbox({port: 0, stateFile})
    try {
      const got = await sb.app.inject({method: 'GET', url: '/checkout/v1/checkouts/chk_old', headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey)}})
      expect(got.statusCode).toBe(200)
      expect(got.json()).toMatchObject({id: 'chk_old'})
    } finally {
      await sb.close()
    }
  })
})
