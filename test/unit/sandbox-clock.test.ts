/**
 * The sandbox clock is bounded: an advance is never negative nor more than 10 years, and the clock
 * never leaves ten years around the real time, so every answer can still print its dates.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {CLOCK_RANGE_DAYS} from '../../src/services/clock-bounds.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {controlHeaders} from '../helpers/control.js'

const DAY = 86_400_000
const V = {'x-ph-api-version': '3.14.0'}

describe('sandbox clock control route', () => {
  let sb: RunningSandbox
  beforeAll(async () => {
    sb = await createSandbox({port: 0})
  })
  afterAll(() => sb.close())

  async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await sb.app.inject({method: 'POST', url, payload: JSON.stringify(body), headers: {'content-type': 'application/json', ...controlHeaders(sb.token), ...headers}})
    return {status: res.statusCode, json: res.json()}
  }

  const clock = async () => Date.parse((await sb.app.inject({method: 'GET', url: '/__sandbox/clock', headers: controlHeaders(sb.token)})).json().now)

  it('refuses a negative, a huge or a non-finite advance with 400 and leaves the clock where it was', async () => {
    const before = await clock()
    for (const advance of ['-1h', '300000000d', `${CLOCK_RANGE_DAYS + 1}d`, -1, 1e300, Number.MAX_SAFE_INTEGER]) {
      const res = await post('/__sandbox/clock', {advance})
      expect([advance, res.status]).toEqual([advance, 400])
      expect(res.json).toEqual({code: 'BAD_REQUEST', message: expect.stringMatching(/"advance" (must not be negative|may move the clock at most 10 years)/)})
    }

    expect((await clock()) - before).toBeLessThan(60_000)
  })

  it('refuses setting the clock more than 10 years from the real time, either way', async () => {
    for (const set of ['+275760-09-13T00:00:00Z', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z', new Date(Date.now() + (CLOCK_RANGE_DAYS + 1) * DAY).toISOString()]) {
      const res = await post('/__sandbox/clock', {set})
      expect([set, res.status]).toEqual([set, 400])
      expect(res.json.message).toMatch(/within 10 years of the real time/)
    }

    expect(Math.abs((await clock()) - Date.now())).toBeLessThan(60_000)
  })

  it('accepts up to 10 years, refuses an advance that would take the clock beyond, and never answers 500 at the edge', async () => {
    const moved = await post('/__sandbox/clock', {advance: `${CLOCK_RANGE_DAYS - 1}d`})
    expect(moved.status).toBe(200)
    expect(Date.parse(moved.json.now) - Date.now()).toBeGreaterThan((CLOCK_RANGE_DAYS - 2) * DAY)
    const beyond = await post('/__sandbox/clock', {advance: '2d'})
    expect(beyond.status).toBe(400)
    expect(beyond.json.message).toMatch(/the clock must be within 10 years/)

    const created = await post(
      '/checkout/v1/checkouts',
      {totalAmount: {value: '5.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'EDGE'},
      {authorization: basicAuth(SANDBOX_KEYS.publicKey)},
    )
    expect(created.status).toBe(200)
    const secret = {authorization: basicAuth(SANDBOX_KEYS.secretKey)}
    const user = await post('/api/users', {role: 'patient', email: 'edge@example.com', password: 'p', givenName: 'A', familyName: 'B'}, V)
    expect(user.status).toBe(201)
    const cookie = (await sb.app.inject({method: 'POST', url: '/api/sign-in', payload: {email: 'edge@example.com', password: 'p'}, headers: V}))
      .headers['set-cookie'] as string
    const reads = [
      {url: `/checkout/v1/checkouts/${created.json.checkoutId}`, headers: secret},
      {url: `/checkout/pay/${created.json.checkoutId}`, headers: {}},
      {url: '/api/users/me/metrics?name=eventsRescue', headers: {...V, cookie: cookie.split(';')[0]}},
      {url: '/api/users/me/events', headers: {...V, cookie: cookie.split(';')[0]}},
      {url: '/__sandbox/health', headers: {}},
    ]
    for (const read of reads) {
      const res = await sb.app.inject({method: 'GET', ...read})
      expect([read.url, res.statusCode]).toEqual([read.url, 200])
    }

    expect((await post('/__sandbox/reset', {})).status).toBe(200)
    expect(Math.abs((await clock()) - Date.now())).toBeLessThan(60_000)
  })

  it('moves forward only: a set before its now is a 400 naming the current time, and the clock stays', async () => {
    const ahead = await post('/__sandbox/clock', {advance: '48h'})
    const back = await post('/__sandbox/clock', {set: new Date(Date.now() + DAY).toISOString()})
    expect(back.status).toBe(400)
    expect(back.json.message).toContain(`is before the clock's now, ${ahead.json.now.slice(0, 16)}`)
    expect(back.json.message).toContain('the clock moves forward only')
    expect((await clock()) - Date.parse(ahead.json.now)).toBeGreaterThanOrEqual(0)
    expect((await clock()) - Date.parse(ahead.json.now)).toBeLessThan(60_000)
    const later = new Date(Date.parse(ahead.json.now) + DAY).toISOString()
    expect((await post('/__sandbox/clock', {set: later})).json).toEqual({now: expect.stringMatching(new RegExp(`^${later.slice(0, 16)}`))})
  })

  it('refuses to start a sandbox whose --clock is outside the range', async () => {
    await expect(createSandbox({port: 0, clock: '9999-01-01T00:00:00Z'})).rejects.toThrow(/within 10 years of the real time/)
  })
})
