import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {SCHEMA_VERSION} from '../../src/sandbox/core/schema.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'
import {firstValue, openDatabase} from '../helpers/sqlite.js'

const V = {'x-ph-api-version': '3.14.0'}
const JSON_HEADERS = {'content-type': 'application/json'}

async function call(
  sb: RunningSandbox,
  method: string,
  path: string,
  options: {body?: string | object; headers?: Record<string, string>} = {},
) {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
  const res = await request(sb.origin + path, {
    method: method as 'GET',
    headers: {
      ...(body === undefined ? {} : JSON_HEADERS),
      ...(path.startsWith('/__sandbox/') ? controlHeaders(sb.token) : {}),
      ...options.headers,
    },
    body,
  })
  const text = await res.body.text()
  let json: any
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }

  return {status: res.statusCode, headers: res.headers, json, text}
}

async function signIn(sb: RunningSandbox, email: string): Promise<string> {
  const res = await call(sb, 'POST', '/api/sign-in', {body: {email}, headers: V})
  expect(res.status).toBe(200)
  const cookie = String(res.headers['set-cookie'])
  expect(cookie).toMatch(/^connect\.sid=[\w-]{20,}; Path=\/; HttpOnly/)
  return cookie.split(';')[0]
}

describe('sandbox core: health auth', () => {
  let sb: RunningSandbox
  beforeAll(async () => {
    sb = await createSandbox({port: 0, modules: testModules})
  })
  afterAll(() => sb.close())

  it('requires x-ph-api-version on every health route, even without a session', async () => {
    const missing = await call(sb, 'GET', '/api/groups/demo/config')
    expect(missing.status).toBe(400)
    expect(missing.json).toEqual({code: 'API_VERSION_REQUIRED', message: expect.stringContaining('x-ph-api-version')})
    const unsupported = await call(sb, 'GET', '/api/groups/demo/config', {headers: {'x-ph-api-version': '2.0.0'}})
    expect(unsupported.status).toBe(400)
    expect(unsupported.json.code).toBe('API_VERSION_UNSUPPORTED')
  })

  it('answers 401 without a session cookie and with an unknown one', async () => {
    const none = await call(sb, 'GET', '/api/users/me/notes', {headers: V})
    expect(none.status).toBe(401)
    expect(none.json.code).toBe('UNAUTHORIZED')
    const unknown = await call(sb, 'GET', '/api/users/me/notes', {headers: {...V, cookie: 'connect.sid=made-up'}})
    expect(unknown.status).toBe(401)
    expect(unknown.json.code).toBe('SESSION_EXPIRED')
  })

  it("replaces me with the caller and refuses another user's data with 403", async () => {
    const cookie = await signIn(sb, 'ana@example.com')
    const own = await call(sb, 'GET', '/api/users/me/notes', {headers: {...V, cookie}})
    expect(own.status).toBe(200)
    expect(own.json.userId).toBe('ana@example.com')
    const other = await call(sb, 'GET', '/api/users/ben@example.com/notes', {headers: {...V, cookie}})
    expect(other.status).toBe(403)
    expect(other.json).toMatchObject({code: 'FORBIDDEN'})
  })

  it('expires a session after 30 minutes idle on the sandbox clock, not before', async () => {
    const cookie = await signIn(sb, 'idle@example.com')
    await call(sb, 'POST', '/__sandbox/clock', {body: {advance: '29m'}})
    expect((await call(sb, 'GET', '/api/users/me/notes', {headers: {...V, cookie}})).status).toBe(200)
    await call(sb, 'POST', '/__sandbox/clock', {body: {advance: '31m'}})
    expect((await call(sb, 'GET', '/api/users/me/notes', {headers: {...V, cookie}})).status).toBe(401)
  })

  it('gives every health answer a unique request id and a content-language', async () => {
    const a = await call(sb, 'GET', '/api/groups/x/config', {headers: {...V, 'accept-language': 'fil-PH'}})
    const b = await call(sb, 'GET', '/api/nowhere', {headers: V})
    expect(a.headers['x-ph-api-request-id']).toMatch(/^[\da-f-]{36}$/)
    expect(b.headers['x-ph-api-request-id']).toMatch(/^[\da-f-]{36}$/)
    expect(a.headers['x-ph-api-request-id']).not.toBe(b.headers['x-ph-api-request-id'])
    expect(a.headers['content-language']).toBe('fil-PH')
    expect(a.json.language).toBe('fil-PH')
    expect(b.status).toBe(404)
    expect(b.json.code).toBe('NOT_FOUND')
  })

  it('names the invalid field in the health error shape and keeps unknown fields', async () => {
    const cookie = await signIn(sb, 'val@example.com')
    const bad = await call(sb, 'POST', '/api/users/me/notes', {body: {count: 'two'}, headers: {...V, cookie}})
    expect(bad.status).toBe(400)
    expect(bad.json.elements).toEqual(
      expect.arrayContaining([expect.objectContaining({field: 'text'}), expect.objectContaining({field: 'count'})]),
    )
    const good = await call(sb, 'POST', '/api/users/me/notes', {body: {text: 'hi', extra: {kept: true}}, headers: {...V, cookie}})
    expect(good.status).toBe(201)
    expect(good.json).toEqual({text: 'hi', extra: {kept: true}})
  })
})

describe('sandbox core: checkout auth', () => {
  let sb: RunningSandbox
  beforeAll(async () => {
    sb = await createSandbox({port: 0, modules: testModules})
  })
  afterAll(() => sb.close())

  it('answers K001 without an Authorization header, K003 for an unknown key, K004 for the wrong kind', async () => {
    const missing = await call(sb, 'GET', '/checkout/v1/checkouts')
    expect(missing.status).toBe(401)
    expect(missing.json).toEqual({error: expect.any(String), code: 'K001', reference: expect.any(String)})
    const unknown = await call(sb, 'GET', '/checkout/v1/checkouts', {headers: {authorization: basicAuth('sk-not-a-key')}})
    expect(unknown.json).toMatchObject({code: 'K003'})
    expect(unknown.status).toBe(401)
    const wrongKind = await call(sb, 'GET', '/checkout/v1/checkouts', {headers: {authorization: basicAuth(SANDBOX_KEYS.publicKey)}})
    expect(wrongKind.status).toBe(401)
    expect(wrongKind.json).toMatchObject({code: 'K004'})
    expect(wrongKind.headers['x-request-id']).toBe(wrongKind.json.reference)
  })

  it('accepts both Basic encodings real clients use: base64(key:) and base64(key)', async () => {
    const withColon = await call(sb, 'GET', '/checkout/v1/checkouts', {headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey)}})
    const bare = `Basic ${Buffer.from(SANDBOX_KEYS.secretKey).toString('base64')}`
    const withoutColon = await call(sb, 'GET', '/checkout/v1/checkouts', {headers: {authorization: bare}})
    expect(withColon.status).toBe(200)
    expect(withoutColon.status).toBe(200)
  })

  it('tolerates {} on GET and DELETE and JSON with a charset', async () => {
    const auth = {authorization: basicAuth(SANDBOX_KEYS.secretKey)}
    const get = await call(sb, 'GET', '/checkout/v1/checkouts', {body: {}, headers: auth})
    expect(get.status).toBe(200)
    const created = await call(sb, 'POST', '/checkout/v1/checkouts', {
      body: JSON.stringify({amount: '1.00'}),
      headers: {authorization: basicAuth(SANDBOX_KEYS.publicKey), 'content-type': 'application/json; charset=utf-8'},
    })
    expect(created.status).toBe(200)
    const del = await call(sb, 'DELETE', `/checkout/v1/checkouts/${created.json.checkoutId}`, {body: {}, headers: auth})
    expect(del.status).toBe(200)
    expect(del.json).toEqual({id: created.json.checkoutId})
  })

  it('answers errors in the checkout shape: validation names the field, 404 for unknown routes', async () => {
    const bad = await call(sb, 'POST', '/checkout/v1/checkouts', {
      body: {amount: 5},
      headers: {authorization: basicAuth(SANDBOX_KEYS.publicKey)},
    })
    expect(bad.status).toBe(400)
    expect(bad.json).toMatchObject({code: 'PY0001', parameters: [{field: 'amount', description: expect.any(String)}]})
    const none = await call(sb, 'GET', '/checkout/v1/nothing-here')
    expect(none.status).toBe(404)
    expect(none.json).toMatchObject({code: 'PY0404', message: expect.stringContaining('/checkout/v1/nothing-here')})
  })
})

describe('sandbox core: robustness, clock and faults', () => {
  let sb: RunningSandbox
  const secret = {authorization: basicAuth(SANDBOX_KEYS.secretKey)}
  const pub = {authorization: basicAuth(SANDBOX_KEYS.publicKey)}
  beforeAll(async () => {
    sb = await createSandbox({port: 0, modules: testModules, clock: '2026-11-21T15:00:00Z'})
  })
  afterAll(() => sb.close())

  it('starts the clock where asked, and set/advance are seen by the routes', async () => {
    const first = await call(sb, 'GET', '/api/groups/g/config', {headers: V})
    expect(Date.parse(first.json.now) - Date.parse('2026-11-21T15:00:00Z')).toBeLessThan(60_000)
    await call(sb, 'POST', '/__sandbox/clock', {body: {set: '2030-01-01T00:00:00Z'}})
    const set = await call(sb, 'GET', '/api/groups/g/config', {headers: V})
    expect(set.json.now.slice(0, 16)).toBe('2030-01-01T00:00')
    await call(sb, 'POST', '/__sandbox/clock', {body: {advance: '1d12h'}})
    const advanced = await call(sb, 'GET', '/api/groups/g/config', {headers: V})
    expect(advanced.json.now.slice(0, 16)).toBe('2030-01-02T12:00')
    // answers are dated by the sandbox clock (the CLI judges the void window by it), refusals too
    expect(advanced.headers.date).toBe(new Date(advanced.json.now).toUTCString())
    const refused = await call(sb, 'GET', '/checkout/v1/checkouts')
    expect([refused.status, String(refused.headers.date).slice(0, 16)]).toEqual([401, 'Wed, 02 Jan 2030'])
    const bad = await call(sb, 'POST', '/__sandbox/clock', {body: {advance: 'soon'}})
    expect(bad.status).toBe(400)
  })

  it('applies each scripted fault exactly once, to the named operation only', async () => {
    await call(sb, 'POST', '/__sandbox/faults', {body: {next: [{op: 'listPays', kind: '500'}]}})
    const other = await call(sb, 'GET', '/api/groups/g/config', {headers: V})
    expect(other.status).toBe(200)
    const failed = await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})
    expect(failed.status).toBe(500)
    expect(failed.json.code).toBe('PY0500')
    const again = await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})
    expect(again.status).toBe(200)
  })

  it('keeps at most 1000 faults pending: more is a 400 that names the limit, and the queue is left as it was', async () => {
    const fault = {op: 'getDemoMetric', kind: '500'}
    expect((await call(sb, 'POST', '/__sandbox/faults', {body: {next: Array.from({length: 1001}, () => fault)}})).status).toBe(400)
    expect((await call(sb, 'POST', '/__sandbox/faults', {body: {next: Array.from({length: 999}, () => fault)}})).status).toBe(200)
    const over = await call(sb, 'POST', '/__sandbox/faults', {body: {next: [fault, fault]}})
    expect([over.status, over.json.message]).toEqual([400, expect.stringContaining('At most 1000 faults')])
    expect((await call(sb, 'GET', '/__sandbox/faults')).json.pending).toHaveLength(999)
    await call(sb, 'DELETE', '/__sandbox/faults')
    expect((await call(sb, 'GET', '/__sandbox/faults')).json.pending).toEqual([])
  })

  it('"drop" takes its fault once: the request after it runs', async () => {
    await call(sb, 'POST', '/__sandbox/faults', {body: {next: [{op: 'createPay', kind: 'drop'}]}})
    await expect(call(sb, 'POST', '/checkout/v1/checkouts', {body: {amount: '2.00'}, headers: pub})).rejects.toThrow()
    expect((await call(sb, 'POST', '/checkout/v1/checkouts', {body: {amount: '2.00'}, headers: pub})).status).toBe(200)
  })

  it('"drop" closes the connection without running the operation', async () => {
    const before = (await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})).json.length
    await call(sb, 'POST', '/__sandbox/faults', {body: {next: [{op: 'createPay', kind: 'drop'}]}})
    await expect(call(sb, 'POST', '/checkout/v1/checkouts', {body: {amount: '2.00'}, headers: pub})).rejects.toThrow()
    const after = (await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})).json.length
    expect(after).toBe(before)
  })

  it('"drop-after-commit" runs the operation, then closes the connection without answering', async () => {
    const before = (await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})).json.length
    await call(sb, 'POST', '/__sandbox/faults', {body: {next: [{op: 'createPay', kind: 'drop-after-commit'}]}})
    await expect(call(sb, 'POST', '/checkout/v1/checkouts', {body: {amount: '3.00'}, headers: pub})).rejects.toThrow()
    const after = (await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})).json
    expect(after.length).toBe(before + 1)
    expect(after.at(-1).amount).toBe('3.00')
    expect((await call(sb, 'GET', '/__sandbox/faults')).json.pending).toEqual([])
  })

  it('"delay" holds the answer for the given time, once', async () => {
    await call(sb, 'POST', '/__sandbox/faults', {body: {next: [{op: 'listPays', kind: 'delay', ms: 300}]}})
    let started = performance.now()
    expect((await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    started = performance.now()
    await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})
    expect(performance.now() - started).toBeLessThan(290)
  })

  it('refuses a malformed fault script', async () => {
    const res = await call(sb, 'POST', '/__sandbox/faults', {body: {next: [{op: 'x', kind: 'explode'}]}})
    expect(res.status).toBe(400)
  })

  it('answers malformed JSON with 400 and oversized bodies with 413, in the service shape', async () => {
    const malformed = await call(sb, 'POST', '/checkout/v1/checkouts', {body: '{"amount": ', headers: pub})
    expect(malformed.status).toBe(400)
    expect(malformed.json).toMatchObject({code: 'PY0001', message: 'The body is not valid JSON'})
    const big = await call(sb, 'POST', '/api/sign-in', {body: JSON.stringify({email: 'x'.repeat(1024 * 1024)}), headers: V})
    expect(big.status).toBe(413)
    expect(big.json.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('keeps answering after 1,000 malformed or oversized requests', async () => {
    const junk = ['{', '[1,', '{"a":}', 'null', '"str"', '\u0000\u0001', '{"__proto__": {"x": 1}}', 'x'.repeat(1024 * 1024 + 10)]
    const paths = ['/checkout/v1/checkouts', '/api/sign-in', '/api/users/me/notes', '/checkout/v1/checkouts/x', '/nowhere', '/api/%zz']
    const statuses = new Set<number>()
    for (let batch = 0; batch < 20; batch++) {
      const results = await Promise.all(
        Array.from({length: 50}, (_, i) => {
          const n = batch * 50 + i
          return call(sb, n % 3 === 0 ? 'PUT' : 'POST', paths[n % paths.length], {
            body: junk[n % junk.length],
            headers: {...V, ...pub, 'content-type': n % 5 === 0 ? 'text/plain' : 'application/json'},
          }).then((r) => r.status)
        }),
      )
      for (const s of results) statuses.add(s)
    }

    expect([...statuses].every((s) => s >= 400 && s < 500)).toBe(true)
    expect((await call(sb, 'GET', '/__sandbox/health')).status).toBe(200)
    expect((await call(sb, 'GET', '/checkout/v1/checkouts', {headers: secret})).status).toBe(200)
  })
})

describe('sandbox core: fail rate and persistence', () => {
  it('answers 503 with Retry-After: 1 when --fail-rate is 1', async () => {
    const sb = await createSandbox({port: 0, modules: testModules, failRate: 1})
    try {
      const res = await call(sb, 'GET', '/api/groups/g/config', {headers: V})
      expect(res.status).toBe(503)
      expect(res.headers['retry-after']).toBe('1')
      expect((await call(sb, 'GET', '/__sandbox/health')).status).toBe(200)
    } finally {
      await sb.close()
    }
  })

  it('keeps the state across a restart with a state file, written with mode 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-state-'))
    const stateFile = join(dir, 'state.json')
    try {
      const first = await createSandbox({port: 0, modules: testModules, stateFile})
      const cookie = await signIn(first, 'keep@example.com')
      await call(first, 'POST', '/api/users/me/notes', {body: {text: 'remember me'}, headers: {...V, cookie}})
      await first.close()

      const second = await createSandbox({port: 0, modules: testModules, stateFile})
      try {
        const notes = await call(second, 'GET', '/api/users/me/notes', {headers: {...V, cookie}})
        expect(notes.status).toBe(200)
        expect(notes.json.notes).toEqual([{text: 'remember me'}])
      } finally {
        await second.close()
      }

      const {statSync} = await import('node:fs')
      expect(statSync(stateFile).mode & 0o777).toBe(0o600)
      const db = openDatabase(stateFile, {readonly: true})
      expect(firstValue(db, 'PRAGMA user_version')).toBe(SCHEMA_VERSION)
      db.close()
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('refuses to start over a corrupt state file and leaves it untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-state-'))
    const stateFile = join(dir, 'state.json')
    const {writeFileSync} = await import('node:fs')
    writeFileSync(stateFile, '{"version": 1, "health": ')
    try {
      await expect(createSandbox({port: 0, modules: testModules, stateFile})).rejects.toThrow(/neither a sandbox database nor valid JSON/)
      expect(readFileSync(stateFile, 'utf8')).toBe('{"version": 1, "health": ')
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })
})
