/**
 * Which routes a web page may call. A merchant's page creates a checkout with the public key
 * (paymaya-js-sdk does, from the browser): that route answers the preflight and grants its answers
 * to the page. No other route grants a page anything, and a secret key sent from a page is never
 * granted. Checked over HTTP as a browser sends it: an Origin header, and a preflight first.
 */
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'

const PAGE = 'http://127.0.0.1:5173'
const publicKey = basicAuth(SANDBOX_KEYS.publicKey)
const secretKey = basicAuth(SANDBOX_KEYS.secretKey)
const order = {totalAmount: {value: '10.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'PAGE-1'}

let sb: RunningSandbox
let checkoutId: string
let session: string

beforeAll(async () => {
  sb = await createSandbox({port: 0})
  checkoutId = (await send('POST', '/checkout/v1/checkouts', {authorization: publicKey}, order)).json.checkoutId
  const signUp = await send(
    'POST',
    '/api/users',
    {'x-ph-api-version': '3.14.0'},
    {role: 'patient', email: 'ana@example.com', password: 'pw-123456', givenName: 'Ana', familyName: 'Cruz'},
  )
  session = String(signUp.headers['set-cookie']).split(';')[0]
})
afterAll(() => sb.close())

async function send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await request(sb.origin + path, {
    method: method as 'POST',
    headers: {...(body === undefined ? {} : {'content-type': 'application/json'}), ...headers},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  const json = String(res.headers['content-type']).startsWith('application/json') ? JSON.parse(text) : undefined
  return {status: res.statusCode, headers: res.headers, json}
}

/** What Chromium sends before a page's cross-origin POST with Authorization and a JSON body. */
const preflight = (path: string, method = 'POST') =>
  send('OPTIONS', path, {origin: PAGE, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type'})

const grant = (res: {headers: Record<string, unknown>}) => res.headers['access-control-allow-origin']

describe('a web page may create a checkout with the public key', () => {
  it("answers the browser's preflight: any origin, POST, the Authorization and Content-Type headers, no credentials", async () => {
    const res = await preflight('/checkout/v1/checkouts')
    expect(res.status).toBe(204)
    expect(grant(res)).toBe('*')
    expect(res.headers['access-control-allow-methods']).toBe('POST')
    expect(String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(['authorization', 'content-type'])
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0)
    expect(res.headers['access-control-allow-credentials']).toBeUndefined()
  })

  it('grants the answer to the page, a refusal included (so the page can show why); a call without an Origin gets no CORS header', async () => {
    const created = await send('POST', '/checkout/v1/checkouts', {origin: PAGE, authorization: publicKey}, {...order, requestReferenceNumber: 'PAGE-2'})
    expect(created.status).toBe(200)
    expect(grant(created)).toBe('*')
    expect(created.headers.vary).toContain('Origin')

    const refused = await send('POST', '/checkout/v1/checkouts', {origin: PAGE, authorization: publicKey}, {...order, items: []})
    expect(refused.status).toBe(400)
    expect(grant(refused)).toBe('*')

    const fromCli = await send('POST', '/checkout/v1/checkouts', {authorization: publicKey}, {...order, requestReferenceNumber: 'PAGE-3'})
    expect(fromCli.status).toBe(200)
    expect(grant(fromCli)).toBeUndefined()
  })

  it('grants nothing elsewhere: secret-key routes, a method the public route lacks, a health session route, the hosted page, the control plane', async () => {
    // The public route first, as the proof that the same requests do get a grant where one is due.
    expect(grant(await preflight('/checkout/v1/checkouts'))).toBe('*')
    const preflights: [string, string][] = [
      [`/checkout/v1/checkouts/${checkoutId}`, 'GET'],
      ['/checkout/v1/checkouts', 'DELETE'],
      ['/checkout/v1/webhooks', 'POST'],
      ['/checkout/v1/customizations', 'GET'],
      ['/api/users/me', 'GET'],
      [`/checkout/pay/${checkoutId}`, 'POST'],
      ['/__sandbox/reset', 'POST'],
      ['/__sandbox/state', 'GET'],
    ]
    for (const [path, method] of preflights) {
      const res = await preflight(path, method)
      expect(grant(res), `${method} ${path}`).toBeUndefined()
      expect(res.headers['access-control-allow-methods'], `${method} ${path}`).toBeUndefined()
    }

    const answers = [
      await send('GET', `/checkout/v1/checkouts/${checkoutId}`, {origin: PAGE, authorization: secretKey}),
      await send('GET', '/checkout/v1/customizations', {origin: PAGE, authorization: secretKey}),
      await send('GET', '/api/users/me', {origin: PAGE, 'x-ph-api-version': '3.14.0', cookie: session}),
      await send('GET', `/checkout/pay/${checkoutId}`, {origin: PAGE}),
      await send('GET', '/__sandbox/state', {origin: PAGE}),
    ]
    expect(answers.map((a) => a.status).slice(0, 4)).toEqual([200, 404, 200, 200])
    for (const res of answers) expect(grant(res)).toBeUndefined()
  })

  it('a secret key sent from a page is refused without a grant, so the page reads nothing; the public key on the same call is granted', async () => {
    const withSecret = await send('POST', '/checkout/v1/checkouts', {origin: PAGE, authorization: secretKey}, {...order, requestReferenceNumber: 'PAGE-4'})
    expect(withSecret.status).toBe(401)
    expect(withSecret.json.code).toBe('K004')
    expect(grant(withSecret)).toBeUndefined()

    const withPublic = await send('POST', '/checkout/v1/checkouts', {origin: PAGE, authorization: publicKey}, {...order, requestReferenceNumber: 'PAGE-5'})
    expect(withPublic.status).toBe(200)
    expect(grant(withPublic)).toBe('*')
  })
})
