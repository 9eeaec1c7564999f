/**
 * Hostile input on every route of both services, on both engines (SQLite, and PostgreSQL on a
 * throwaway cluster): a body nested past the depth limit is the route's 400 naming the limit; a
 * NUL byte or invalid UTF-8 in a path or a query is the route's 400 or 404; no request is a 500,
 * and none makes the sandbox write a stack trace.
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import type {Operation} from '../../src/http/operation.js'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {checkoutOps} from '../../src/services/checkout/operations.js'
import {healthOps} from '../../src/services/health/operations.js'
import {SANDBOX_KEYS, SANDBOX_STATE_MAX_DEPTH} from '../../src/services/sandbox-defaults.js'
import {controlHeaders} from '../helpers/control.js'
import {bothEngines, type PostgresCluster, startPostgres} from '../helpers/postgres.js'

const V = {'x-ph-api-version': '3.14.0'}
const deepValue = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
const CHECKOUT = `{"totalAmount":{"value":"1.00","currency":"PHP"},"items":[{"name":"Tea"}],"requestReferenceNumber":"deep","metadata":${deepValue(10_000)}}`

/** Every operation row of both services, as a URL whose path parameters are `value` (written as it goes on the wire). */
const ROUTES = [
  ...Object.values(healthOps).map((op) => ({op: op as Operation, prefix: ''})),
  ...Object.values(checkoutOps).map((op) => ({op: op as Operation, prefix: '/checkout'})),
]
const pathWith = (op: Operation, prefix: string, value: string) => prefix + op.path.replaceAll(/{\w+}/g, value)

describe.each(bothEngines())('hostile input on $engine', ({engine, skip}) => {
  let cluster: PostgresCluster | undefined
  let sb: RunningSandbox
  let cookie = ''
  const stderr = vi.fn()

  beforeAll(async () => {
    if (skip) return
    if (engine === 'postgres') cluster = await startPostgres()
    sb = await createSandbox({database: cluster?.url, notice: () => undefined, port: 0, seed: true})
    const signIn = await sb.app.inject({
      method: 'POST',
      url: '/api/sign-in',
      headers: {...V, 'content-type': 'application/json'},
      payload: {email: 'patient@demo-clinic.test', password: 'demo-patient-pass'},
    })
    cookie = String(signIn.headers['set-cookie']).split(';')[0]
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr(String(chunk))
      return true
    })
  }, 60_000)
  afterAll(async () => {
    vi.restoreAllMocks()
    await sb?.close()
    await cluster?.stop()
  })

  const send = (method: string, url: string, payload?: string, key: string = SANDBOX_KEYS.secretKey) =>
    sb.app.inject({
      method: method as 'GET',
      url,
      headers: {...V, authorization: basicAuth(key), cookie, ...(payload === undefined ? {} : {'content-type': 'application/json'})},
      payload,
    })

  it.skipIf(skip !== undefined)('answers a 10,000-deep metadata on checkout creation 400, naming the limit', async () => {
    const res = await send('POST', '/checkout/v1/checkouts', CHECKOUT, SANDBOX_KEYS.publicKey)
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toContain(`nested deeper than ${SANDBOX_STATE_MAX_DEPTH} levels`)
  })

  it.skipIf(skip !== undefined)('answers a deep body on every route 400 naming the limit, before its handler runs', async () => {
    const seen: string[] = []
    for (const {op, prefix} of ROUTES) {
      if (op.method === 'GET') continue
      const res = await send(op.method, pathWith(op, prefix, 'x1'), deepValue(10_000))
      seen.push(`${op.method} ${op.path} ${res.statusCode}`)
      expect(res.statusCode, `${op.method} ${op.path}`).toBe(400)
      expect(res.body).toContain(`nested deeper than ${SANDBOX_STATE_MAX_DEPTH} levels`)
    }

    const control = await sb.app.inject({method: 'PUT', url: '/__sandbox/state', headers: {...controlHeaders(sb.token), 'content-type': 'application/json'}, payload: deepValue(10_000)})
    expect(control.statusCode).toBe(400)
    expect(seen.length).toBeGreaterThan(10)
  })

  it.skipIf(skip !== undefined)('answers a NUL byte or invalid UTF-8 in any path parameter 404 or 400, never 500', async () => {
    for (const {op, prefix} of ROUTES) {
      if (!op.path.includes('{')) continue
      for (const value of ['abc%00', '%00', 'x%00y', '%C3%28', '%FF', '%ED%A0%80']) {
        const res = await send(op.method, pathWith(op, prefix, value), op.method === 'GET' || op.method === 'DELETE' ? undefined : '{}')
        expect([400, 404], `${op.method} ${pathWith(op, prefix, value)}: ${res.body}`).toContain(res.statusCode)
        expect(res.headers['content-type']).toMatch(/json/)
      }
    }

    for (const url of ['/checkout/pay/%00x', '/t/tn_0123456789abcdef%00/api/users/me', '/__sandbox/tenants/%00']) {
      const res = await sb.app.inject({method: 'GET', url, headers: controlHeaders(sb.token)})
      expect([400, 404], `${url}: ${res.body}`).toContain(res.statusCode)
    }
  })

  it.skipIf(skip !== undefined)('answers a NUL byte in any query value 400 naming the parameter', async () => {
    for (const {op, prefix} of ROUTES) {
      if (op.method !== 'GET') continue
      const res = await send('GET', `${pathWith(op, prefix, 'me')}?symptom=%00&pagingToken=a%00b`)
      expect([400, 404], `${op.path}: ${res.body}`).toContain(res.statusCode)
    }

    const res = await send('GET', '/api/users/me/events?symptom=%00')
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toContain('symptom')
  })

  it.skipIf(skip !== undefined)('answers a NUL in a body string 400 on every engine, keys and forms included; an escaped backslash before u0000 is text', async () => {
    const checkout = {totalAmount: {value: '1.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'n\u0000ul'}
    const event = {date: '2026-09-01T08:00:00.000Z', medicationId: 'med\u0000x', medicationType: 'rescue'}
    for (const [url, body, key] of [
      ['/checkout/v1/checkouts', JSON.stringify(checkout), SANDBOX_KEYS.publicKey],
      ['/api/users/me/events', JSON.stringify(event), undefined],
      ['/api/users/me/events', '{"date":"2026-09-01T08:00:00.000Z","medicationId":"m","medicationType":"rescue","x\\u0000":1}', undefined],
    ] as const) {
      const res = await send('POST', url, body, key)
      expect(res.statusCode, body).toBe(400)
      expect(res.body).toContain('NUL character')
    }

    const form = await sb.app.inject({method: 'POST', url: '/checkout/pay/chk_x', headers: {'content-type': 'application/x-www-form-urlencoded'}, payload: 'action=pay&cardNumber=%00'})
    expect(form.statusCode).toBe(400)
    const text = await send('POST', '/api/users/me/events', JSON.stringify({...event, medicationId: 'med', address: 'C:\\u0000dir'}))
    expect(text.statusCode, text.body).toBe(201)
    expect((await send('GET', `/api/users/me/events/${text.json().id}`)).json().address).toBe('C:\\u0000dir')
  })

  it.skipIf(skip !== undefined)('wrote no stack trace to stderr', () => {
    const written = stderr.mock.calls.map(([text]) => text).join('')
    expect(written).not.toMatch(/\n\s+at /)
    expect(written).not.toMatch(/failed: /)
  })
})
