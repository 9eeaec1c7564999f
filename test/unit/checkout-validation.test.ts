/**
 * The request schemas are shared by the CLI and the sandbox: what the CLI refuses before sending
 * (exit 2), the sandbox refuses on arrival with a 400 naming the field. Checked over HTTP against a
 * real sandbox, with raw requests that skip the CLI's own checks.
 */
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'

let sb: RunningSandbox
beforeAll(async () => {
  sb = await createSandbox({port: 0})
})
afterAll(() => sb.close())

async function send(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await request(sb.origin + path, {
    method: method as 'POST',
    headers: {'content-type': 'application/json', ...headers},
    body: JSON.stringify(body),
  })
  return {status: res.statusCode, headers: res.headers, json: (await res.body.json()) as any}
}

const secret = {authorization: basicAuth(SANDBOX_KEYS.secretKey)}
const publicKey = {authorization: basicAuth(SANDBOX_KEYS.publicKey)}
const order = {totalAmount: {value: '10.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'ORDER-1'}
// eslint-disable-next-line no-script-url -- the hostile redirect the service must refuse
const SCRIPT_URL = 'javascript:alert(document.cookie)'

const fieldsOf = (json: any) => (json.parameters ?? json.elements ?? []).map((p: any) => p.field)

describe('checkout service: refused on arrival with 400', () => {
  it('a javascript: or data: redirect URL', async () => {
    for (const [key, url] of [
      ['success', SCRIPT_URL],
      ['failure', 'data:text/html,<script>alert(1)</script>'],
    ]) {
      const res = await send('POST', '/checkout/v1/checkouts', {...order, redirectUrl: {[key]: url}}, publicKey)
      expect(res.status).toBe(400)
      expect(fieldsOf(res.json)).toEqual([`redirectUrl.${key}`])
    }
  })

  it('a 0.00 total, and a 0.00 refund', async () => {
    const total = await send('POST', '/checkout/v1/checkouts', {...order, totalAmount: {value: '0.00', currency: 'PHP'}}, publicKey)
    expect(total.status).toBe(400)
    expect(fieldsOf(total.json)).toEqual(['totalAmount.value'])
    const refund = await send('POST', '/checkout/v1/checkouts/chk_x/refunds', {reason: 'x', amount: {value: '0.00', currency: 'PHP'}}, secret)
    expect(refund.status).toBe(400)
    expect(fieldsOf(refund.json)).toEqual(['amount.value'])
  })

  it('a webhook whose callback is not http(s)', async () => {
    const res = await send('POST', '/checkout/v1/webhooks', {name: 'CHECKOUT_SUCCESS', callbackUrl: 'data:text/plain,x'}, secret)
    expect(res.status).toBe(400)
    expect(fieldsOf(res.json)).toEqual(['callbackUrl'])
  })

  it('a valid request still goes through', async () => {
    const res = await send('POST', '/checkout/v1/checkouts', {...order, redirectUrl: {success: 'http://localhost:3000/ok'}}, publicKey)
    expect(res.status).toBe(200)
  })
})

describe('health service: an update with nothing to change is refused with 400', () => {
  let cookie: string
  let userId: string
  const v = {'x-ph-api-version': '3.14.0'}

  beforeAll(async () => {
    const res = await send(
      'POST',
      '/api/users',
      {role: 'patient', email: 'ana@example.com', password: 'pw-123456', givenName: 'Ana', familyName: 'Cruz'},
      v,
    )
    expect(res.status).toBe(201)
    cookie = String(res.headers['set-cookie']).split(';')[0]
    userId = res.json.id
  })

  it('updateEvent with only a field the service does not know', async () => {
    const res = await send('PUT', `/api/users/${userId}/events/e1`, {note: 'x'}, {...v, cookie})
    expect(res.status).toBe(400)
    expect(res.json.message).toContain('nothing to change')
  })

  it('patchPlanMedication with neither usageList nor sensors', async () => {
    const res = await send('PATCH', `/api/users/${userId}/plan/medication/med-a`, {}, {...v, cookie})
    expect(res.status).toBe(400)
    expect(res.json.message).toContain('nothing to change: give at least one of usageList, sensors')
  })
})
