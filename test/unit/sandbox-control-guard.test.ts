/**
 * The sandbox in front of browsers and strangers (src/sandbox/core/control-guard.ts): control
 * routes need the token, no web page can drive them (foreign Origin, cross-site fetch metadata,
 * text or form bodies that need no preflight), and no route answers a host name the sandbox does
 * not serve (DNS rebinding). Each refusal changes nothing: the state is compared before and after.
 */
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {controlHeaders} from '../helpers/control.js'

const ATTACKER = 'https://attacker.example'

let sb: RunningSandbox

async function send(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const res = await request(sb.origin + path, {method: method as 'GET', headers, body})
  const text = await res.body.text()
  return {status: res.statusCode, headers: res.headers, json: text ? JSON.parse(text) : undefined}
}

/** The whole state, read with the token. */
async function state(): Promise<unknown> {
  const res = await send('GET', '/__sandbox/state', controlHeaders(sb.token))
  expect(res.status).toBe(200)
  return res.json
}

async function clock(): Promise<string> {
  return (await send('GET', '/__sandbox/clock', controlHeaders(sb.token))).json.now
}

beforeAll(async () => {
  sb = await createSandbox({port: 0, seed: true, clock: '2026-11-21T02:00:00Z', allowedHosts: ['sandbox.team.internal']})
})
afterAll(() => sb.close())

describe('the control token', () => {
  it('the state export is 401 without the token (or with another), in the error shape; 200 with it', async () => {
    const wrong: Record<string, string>[] = [{}, {authorization: 'Bearer not-the-token'}, {authorization: `Basic ${sb.token}`}]
    for (const headers of wrong) {
      const refused = await send('GET', '/__sandbox/state', headers)
      expect(refused.status).toBe(401)
      expect(refused.json).toMatchObject({code: 'UNAUTHORIZED', message: expect.stringContaining('control token')})
      expect(JSON.stringify(refused.json)).not.toContain('passwordHash')
    }

    const exported = await send('GET', '/__sandbox/state', controlHeaders(sb.token))
    expect(exported.status).toBe(200)
    expect(exported.json.version).toEqual(expect.any(Number))
  })

  it('is asked for whatever the spelling of the path: the router decodes it, the guard checks what it matched', async () => {
    const before = await state()
    for (const path of ['/%5F_sandbox/state', '/%5f%5fsandbox/state', '/__sandbox%2Fstate', '/%5F%5Fsandbox/checkout/seeded']) {
      const refused = await send('GET', path)
      expect(refused.status, path).not.toBe(200)
      expect(JSON.stringify(refused.json ?? {}), path).not.toContain('passwordHash')
    }

    expect((await send('POST', '/%5F_sandbox/reset', {'content-type': 'application/json'}, '{}')).status).toBe(401)
    expect(await state()).toEqual(before)
  })

  it('covers module and core control routes alike; only a bare liveness check answers without it', async () => {
    for (const path of [
      '/__sandbox/checkout/seeded',
      '/__sandbox/webhook-deliveries',
      '/__sandbox/events',
      '/__sandbox/faults',
      '/__sandbox/clock',
    ]) {
      expect([path, (await send('GET', path)).status]).toEqual([path, 401])
    }

    const before = await state()
    const injected = await send('PUT', '/__sandbox/state', {'content-type': 'application/json'}, JSON.stringify({version: 2}))
    expect(injected.status).toBe(401)
    expect(await state()).toEqual(before)

    const live = await send('GET', '/__sandbox/health')
    expect(live.status).toBe(200)
    expect(live.json).toEqual({ok: true})
  })
})

describe('no browser can drive the control plane', () => {
  it('a cross-site text/plain POST to /__sandbox/reset changes nothing, with or without the token', async () => {
    const before = await state()
    const attempts: Record<string, string>[] = [
      {origin: ATTACKER, 'content-type': 'text/plain'},
      {origin: ATTACKER, 'content-type': 'text/plain', ...controlHeaders(sb.token)},
      {'sec-fetch-site': 'cross-site', 'content-type': 'text/plain', ...controlHeaders(sb.token)},
      {'sec-fetch-site': 'same-site', 'content-type': 'application/json', ...controlHeaders(sb.token)},
      {'content-type': 'text/plain', ...controlHeaders(sb.token)},
    ]
    const statuses = []
    for (const headers of attempts) statuses.push((await send('POST', '/__sandbox/reset', headers, 'x')).status)
    expect(statuses).toEqual([403, 403, 403, 403, 415])
    expect(await state()).toEqual(before)
  })

  it('form bodies to /__sandbox/clock and /__sandbox/checkout/next-refund change nothing', async () => {
    const before = {clock: Date.parse(await clock()), state: await state()}
    const form = {'content-type': 'application/x-www-form-urlencoded'}
    const clockMove = await send('POST', '/__sandbox/clock', {...form, origin: ATTACKER}, 'advance=3650d')
    const tokened = await send('POST', '/__sandbox/clock', {...form, ...controlHeaders(sb.token)}, 'advance=3650d')
    const refund = await send('POST', '/__sandbox/checkout/next-refund', {...form, ...controlHeaders(sb.token)}, 'status=FAILED')
    expect([clockMove.status, tokened.status, refund.status]).toEqual([403, 415, 415])
    expect(tokened.json).toMatchObject({code: 'UNSUPPORTED_MEDIA_TYPE'})
    // the clock runs on with real time: it moved by moments, not by ten years
    expect(Date.parse(await clock()) - before.clock).toBeLessThan(60_000)
    expect(await state()).toEqual(before.state)
  })

  it('answers the sandbox own origin and a request typed by a person, and never with CORS headers', async () => {
    const own = await send('GET', '/__sandbox/clock', {...controlHeaders(sb.token), origin: sb.origin, 'sec-fetch-site': 'same-origin'})
    const typed = await send('GET', '/__sandbox/clock', {...controlHeaders(sb.token), 'sec-fetch-site': 'none'})
    expect([own.status, typed.status]).toEqual([200, 200])
    const port = new URL(sb.origin).port
    const otherLocalPage = await send('GET', '/__sandbox/clock', {
      ...controlHeaders(sb.token),
      origin: `http://localhost:${Number(port) + 1}`,
    })
    expect(otherLocalPage.status).toBe(403)
    for (const res of [own, typed, otherLocalPage])
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
  })
})

describe('host names (DNS rebinding)', () => {
  it('refuses a foreign Host with 421 on a service route and a control route, doing nothing', async () => {
    const before = await state()
    const rebound = {host: `rebind.attacker.example:${new URL(sb.origin).port}`}
    const service = await sb.app.inject({
      method: 'POST',
      url: '/checkout/v1/checkouts',
      headers: {...rebound, authorization: basicAuth(SANDBOX_KEYS.publicKey)},
      payload: {totalAmount: {value: '5.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'REBIND'},
    })
    const control = await sb.app.inject({
      method: 'POST',
      url: '/__sandbox/reset',
      headers: {...rebound, ...controlHeaders(sb.token)},
      payload: {},
    })
    const read = await sb.app.inject({method: 'GET', url: '/__sandbox/state', headers: {...rebound, ...controlHeaders(sb.token)}})
    expect([service.statusCode, control.statusCode, read.statusCode]).toEqual([421, 421, 421])
    expect(service.json()).toMatchObject({code: expect.any(String), message: expect.stringContaining('rebind.attacker.example')})
    expect(read.json()).toMatchObject({code: 'MISDIRECTED_REQUEST'})
    expect(await state()).toEqual(before)
  })

  it('answers the loopback names, the bound address and an --allowed-host name', async () => {
    const port = new URL(sb.origin).port
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `sandbox.team.internal:${port}`,
      `SANDBOX.team.internal`,
    ]) {
      const res = await sb.app.inject({method: 'GET', url: '/__sandbox/health', headers: {host}})
      expect([host, res.statusCode]).toEqual([host, 200])
    }
  })
})
