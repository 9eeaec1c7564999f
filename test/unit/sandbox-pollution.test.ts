/**
 * Client input shaped like prototype keys, against the real sandbox modules through fastify's
 * inject(): session cookies, path ids and body keys such as `__proto__` or `constructor` are plain
 * unknown values. None is answered 500, none changes a later record, none survives a restart.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {controlHeaders} from '../helpers/control.js'

const PROTOTYPE_IDS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']
const V = {'x-ph-api-version': '3.14.0'}
const PUBLIC = {authorization: basicAuth(SANDBOX_KEYS.publicKey)}
const SECRET = {authorization: basicAuth(SANDBOX_KEYS.secretKey)}
const CARD = {action: 'pay', cardNumber: '5123456789012346', cvc: '123', expiry: '12/30'}
const prototypeNames = () => Object.getOwnPropertyNames(Object.prototype).sort()
const PRISTINE = prototypeNames()

interface Answer {
  status: number
  json: any
  headers: Record<string, unknown>
}

async function send(
  sb: RunningSandbox,
  method: string,
  url: string,
  options: {body?: object | string; form?: string; headers?: Record<string, string>} = {},
): Promise<Answer> {
  const headers: Record<string, string> = {...options.headers}
  let payload: string | undefined
  if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    payload = options.form
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
  }

  const res = await sb.app.inject({method: method as 'GET', url, headers, payload})
  let json: any
  try {
    json = res.body ? JSON.parse(res.body) : undefined
  } catch {
    json = undefined
  }

  return {status: res.statusCode, json, headers: res.headers}
}

function checkoutBody(item: Record<string, unknown> = {name: 'Tea', quantity: '1'}): Record<string, unknown> {
  return {
    totalAmount: {value: '100.00', currency: 'PHP'},
    items: [item],
    requestReferenceNumber: 'REF-1',
    redirectUrl: {success: 'https://shop.example/ok'},
  }
}

async function createCheckout(sb: RunningSandbox): Promise<string> {
  const res = await send(sb, 'POST', '/checkout/v1/checkouts', {body: checkoutBody(), headers: PUBLIC})
  expect(res.status).toBe(200)
  return res.json.checkoutId
}

async function signUp(sb: RunningSandbox, email: string): Promise<{cookie: string; id: string}> {
  const res = await send(sb, 'POST', '/api/users', {
    body: {role: 'patient', email, password: 'pass-word-1', givenName: 'Ana', familyName: 'Reyes'},
    headers: V,
  })
  expect(res.status).toBe(201)
  return {cookie: String(res.headers['set-cookie']).split(';')[0], id: res.json.id}
}

/** What pollution would show: a foreign field on new records, a schema fooled by an inherited field. */
async function expectUnpolluted(sb: RunningSandbox): Promise<void> {
  expect(prototypeNames()).toEqual(PRISTINE)
  const nameless = await send(sb, 'POST', '/checkout/v1/checkouts', {body: checkoutBody({quantity: '1'}), headers: PUBLIC})
  expect(nameless.status).toBe(400)
  expect(nameless.json.parameters).toEqual([expect.objectContaining({field: 'items.0.name'})])

  const id = await createCheckout(sb)
  const checkout = (await send(sb, 'GET', `/checkout/v1/checkouts/${id}`, {headers: SECRET})).json
  expect(checkout).not.toHaveProperty('lastSeen')
  expect(checkout).not.toHaveProperty('callbackUrl')
  expect(checkout).not.toHaveProperty('name')
  expect(checkout.items).toEqual([{name: 'Tea', quantity: '1'}])
  const user = await signUp(sb, `clean-${id}@example.com`)
  const me = (await send(sb, 'GET', '/api/users/me', {headers: {...V, cookie: user.cookie}})).json
  expect(me).not.toHaveProperty('lastSeen')
  expect(me).not.toHaveProperty('callbackUrl')
}

describe('sandbox: ids, cookies and bodies named like prototype keys', () => {
  let sb: RunningSandbox
  let paid: string
  let user: {cookie: string; id: string}
  beforeAll(async () => {
    sb = await createSandbox({port: 0, clock: '2026-11-21T02:00:00Z'})
    user = await signUp(sb, 'ana@example.com')
    paid = await createCheckout(sb)
    const pay = await send(sb, 'POST', `/checkout/pay/${paid}`, {form: new URLSearchParams(CARD).toString()})
    expect(pay.status).toBe(303)
  })
  afterAll(() => sb.close())

  it('answers 401 to a session cookie named like a prototype key, on every kind of health route', async () => {
    for (const sid of PROTOTYPE_IDS) {
      const headers = {...V, cookie: `connect.sid=${sid}`}
      const me = await send(sb, 'GET', '/api/users/me', {headers})
      expect(me.status, sid).toBe(401)
      expect(me.json.code).toBe('SESSION_EXPIRED')
      const add = await send(sb, 'POST', '/api/users/me/events', {
        body: {date: '2026-11-20T08:00:00Z', medicationId: 'med-salbutamol', medicationType: 'rescue'},
        headers,
      })
      expect(add.status, sid).toBe(401)
      const open = await send(sb, 'GET', '/api/groups/demo-clinic/config', {headers})
      expect(open.status, sid).toBe(200)
    }

    await expectUnpolluted(sb)
  })

  it('answers 401 to a checkout API key named like a prototype key', async () => {
    for (const key of PROTOTYPE_IDS) {
      const res = await send(sb, 'GET', `/checkout/v1/checkouts/${paid}`, {headers: {authorization: basicAuth(key)}})
      expect(res.status, key).toBe(401)
      expect(res.json.code).toBe('K003')
    }
  })

  it('answers 404 to checkout, refund and webhook ids named like prototype keys, on GET, PUT, POST and DELETE', async () => {
    const webhook = {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://attacker.example/hook'}
    for (const id of PROTOTYPE_IDS) {
      const answers = {
        getCheckout: await send(sb, 'GET', `/checkout/v1/checkouts/${id}`, {headers: SECRET}),
        voidCheckout: await send(sb, 'DELETE', `/checkout/v1/checkouts/${id}`, {body: {reason: 'x'}, headers: SECRET}),
        refundCheckout: await send(sb, 'POST', `/checkout/v1/checkouts/${id}/refunds`, {
          body: {reason: 'x', amount: {value: '1.00', currency: 'PHP'}},
          headers: SECRET,
        }),
        listRefunds: await send(sb, 'GET', `/checkout/v1/checkouts/${id}/refunds`, {headers: SECRET}),
        getRefundOfUnknown: await send(sb, 'GET', `/checkout/v1/checkouts/${id}/refunds/${id}`, {headers: SECRET}),
        getRefund: await send(sb, 'GET', `/checkout/v1/checkouts/${paid}/refunds/${id}`, {headers: SECRET}),
        updateWebhook: await send(sb, 'PUT', `/checkout/v1/webhooks/${id}`, {body: webhook, headers: SECRET}),
        deleteWebhook: await send(sb, 'DELETE', `/checkout/v1/webhooks/${id}`, {headers: SECRET}),
        payPage: await send(sb, 'GET', `/checkout/pay/${id}`),
        payForm: await send(sb, 'POST', `/checkout/pay/${id}`, {form: new URLSearchParams(CARD).toString()}),
      }
      for (const [route, answer] of Object.entries(answers)) expect([route, id, answer.status]).toEqual([route, id, 404])
    }

    expect((await send(sb, 'GET', '/checkout/v1/webhooks', {headers: SECRET})).json).toEqual([])
    await expectUnpolluted(sb)
  })

  it('answers 404 to user, event and medication ids named like prototype keys', async () => {
    const headers = {...V, cookie: user.cookie}
    const event = {date: '2026-11-20T08:00:00Z', medicationId: 'med-salbutamol', medicationType: 'rescue'}
    for (const id of PROTOTYPE_IDS) {
      const answers = {
        getUserById: await send(sb, 'GET', `/api/users/${id}`, {headers}),
        addEventForOther: await send(sb, 'POST', `/api/users/${id}/events`, {body: event, headers}),
        getEventById: await send(sb, 'GET', `/api/users/me/events/${id}`, {headers}),
        updateEvent: await send(sb, 'PUT', `/api/users/me/events/${id}`, {body: {doses: 2}, headers}),
        deleteEvent: await send(sb, 'DELETE', `/api/users/me/events/${id}`, {headers}),
        patchMedication: await send(sb, 'PATCH', `/api/users/me/plan/medication/${id}`, {body: {usageList: []}, headers}),
        deleteMedication: await send(sb, 'DELETE', `/api/users/me/plan/medication/${id}`, {headers}),
        groupConfig: await send(sb, 'GET', `/api/groups/${id}/config`, {headers: V}),
      }
      // no user has such an id: 404, as for any unknown user (src/sandbox/health/access.ts)
      for (const [route, answer] of Object.entries(answers)) expect([route, id, answer.status]).toEqual([route, id, 404])
    }

    const control = await send(sb, 'POST', '/__sandbox/health/act', {body: {userId: '__proto__', score: 20}, headers: controlHeaders(sb.token)})
    expect(control.status).toBe(404)
    await expectUnpolluted(sb)
  })

  it('refuses JSON bodies with __proto__ or constructor.prototype keys with 400 in the service shape, storing nothing', async () => {
    const valid = checkoutBody()
    const poisoned = [
      `{"__proto__": {"name": "polluted", "lastSeen": 1}, ${JSON.stringify(valid).slice(1)}`,
      `{"constructor": {"prototype": {"name": "polluted"}}, ${JSON.stringify(valid).slice(1)}`,
      JSON.stringify(valid).replace('"quantity":"1"', '"quantity":"1","__proto__":{"name":"polluted"}'),
    ]
    for (const body of poisoned) {
      const res = await send(sb, 'POST', '/checkout/v1/checkouts', {body, headers: PUBLIC})
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({code: 'PY0001', message: expect.stringContaining('forbidden key'), reference: expect.any(String)})
    }

    const hook = await send(sb, 'PUT', '/checkout/v1/webhooks/__proto__', {
      body: '{"name": "CHECKOUT_SUCCESS", "callbackUrl": "https://attacker.example/", "__proto__": {"callbackUrl": "x"}}',
      headers: SECRET,
    })
    expect(hook.status).toBe(400)
    const health = await send(sb, 'POST', '/api/sign-in', {
      body: '{"email": "ana@example.com", "password": "pass-word-1", "constructor": {"prototype": {"lastSeen": 1}}}',
      headers: V,
    })
    expect(health.status).toBe(400)
    expect(health.json).toEqual({code: 'BAD_REQUEST', message: expect.stringContaining('forbidden key')})
    expect(health.headers['set-cookie']).toBeUndefined()
    await expectUnpolluted(sb)
  })

  it('refuses hosted page forms with a __proto__ field with 400, leaving the checkout unpaid', async () => {
    const id = await createCheckout(sb)
    const card = new URLSearchParams(CARD).toString()
    for (const form of [`__proto__=x&${card}`, `${card}&__proto__=polluted`, `constructor=x&${card}`, `prototype=x&${card}`]) {
      const res = await send(sb, 'POST', `/checkout/pay/${id}`, {form})
      expect(res.status, form).toBe(400)
      expect(res.json).toMatchObject({code: 'PY0001', message: expect.stringContaining('forbidden field name')})
    }

    const checkout = (await send(sb, 'GET', `/checkout/v1/checkouts/${id}`, {headers: SECRET})).json
    expect(checkout.paymentStatus).toBe('PENDING_PAYMENT')
    await expectUnpolluted(sb)
  })
})

describe('sandbox state file: prototype keys never come back', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsctl-pollution-'))
  })
  afterAll(() => rmSync(dir, {force: true, recursive: true}))

  it('after an attack and a restart, later records are still clean and the file holds no prototype key', async () => {
    const stateFile = join(dir, 'attacked.json')
    const first = await createSandbox({port: 0, stateFile})
    for (const id of PROTOTYPE_IDS) {
      await send(first, 'GET', '/api/users/me', {headers: {...V, cookie: `connect.sid=${id}`}})
      await send(first, 'PUT', `/checkout/v1/webhooks/${id}`, {
        body: {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://attacker.example/'},
        headers: SECRET,
      })
      await send(first, 'GET', `/checkout/v1/checkouts/${id}`, {headers: SECRET})
    }

    const kept = await createCheckout(first)
    await first.close()
    const bytes = readFileSync(stateFile)
    expect(bytes.includes('__proto__')).toBe(false)
    expect(bytes.includes('attacker.example')).toBe(false)

    const second = await createSandbox({port: 0, stateFile})
    try {
      expect((await send(second, 'GET', `/checkout/v1/checkouts/${kept}`, {headers: SECRET})).status).toBe(200)
      await expectUnpolluted(second)
    } finally {
      await second.close()
    }
  })

  it('imports a JSON state file of the earliest format (tables as objects), dropping __proto__ keys', async () => {
    const stateFile = join(dir, 'version-1.json')
    const record = {
      id: 'chk_old',
      totalAmount: {value: '10.00', currency: 'PHP'},
      items: [{name: 'Tea'}],
      requestReferenceNumber: 'OLD',
      status: 'CREATED',
      paymentStatus: 'PENDING_PAYMENT',
      isAutoRedirect: true,
      refundedAmount: '0.00',
      createdAt: '2026-11-21T02:00:00.000Z',
      updatedAt: '2026-11-21T02:00:00.000Z',
      expiredAt: '2026-11-21T03:00:00.000Z',
    }
    writeFileSync(
      stateFile,
      `{"version": 1,
        "health": {"sessions": {"__proto__": {"userId": "x", "lastSeen": 1}}, "users": {}, "events": {}, "act": {}},
        "checkout": {"checkouts": {"__proto__": {"name": "polluted"}, "constructor": ${JSON.stringify({...record, id: 'constructor'})},
                                   "chk_old": ${JSON.stringify(record)}},
                     "refunds": {}, "webhooks": {"__proto__": {"callbackUrl": "https://attacker.example/"}},
                     "customization": null, "refundOutcomes": []}}`,
    )
    const original = readFileSync(stateFile, 'utf8')
    const sb = await createSandbox({port: 0, stateFile, clock: '2026-11-21T02:30:00Z', notice() {}})
    try {
      expect(await sb.ctx.state.checkout.checkouts.keys()).toEqual(['constructor', 'chk_old'])
      expect(await sb.ctx.state.health.sessions.count()).toBe(0)
      expect(await sb.ctx.state.health.groups.count()).toBe(1)
      const old = await send(sb, 'GET', '/checkout/v1/checkouts/chk_old', {headers: SECRET})
      expect(old.json).toMatchObject({id: 'chk_old', paymentStatus: 'PENDING_PAYMENT'})
      expect((await send(sb, 'GET', '/checkout/v1/checkouts/constructor', {headers: SECRET})).json.id).toBe('constructor')
      expect((await send(sb, 'GET', '/checkout/v1/checkouts/__proto__', {headers: SECRET})).status).toBe(404)
      expect((await send(sb, 'GET', '/checkout/v1/webhooks', {headers: SECRET})).json).toEqual([])
      await expectUnpolluted(sb)
    } finally {
      await sb.close()
    }

    expect(readFileSync(`${stateFile}.v1.json`, 'utf8')).toBe(original)
    expect(readFileSync(stateFile).includes('attacker.example')).toBe(false)
  })
})
