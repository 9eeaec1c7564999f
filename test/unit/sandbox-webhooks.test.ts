/**
 * Webhook deliveries keep the tenant's time: a failed attempt is retried 5, 15 and 45 minutes of
 * the tenant's clock after each failure (attempts at 0, 5, 20 and 65 minutes), then given up; each
 * attempt carries the delivery's id (the same on every attempt and on a resend) and its number,
 * and is logged in the store. Nothing is retried on real time alone within seconds.
 */
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import {request} from 'undici'
import {afterEach, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {DELIVERY_ATTEMPT_HEADER, DELIVERY_ID_HEADER, WEBHOOK_USER_AGENT} from '../../src/sandbox/core/webhooks.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'

const MINUTE = 60_000
const START = '2026-11-21T02:00:00.000Z'

interface Received {
  headers: IncomingHttpHeaders
  body: Buffer
}

/** A receiver that answers with the given statuses in turn (the last one repeats), after an optional delay; it keeps every request's raw bytes. */
async function receiver(statuses: number[], delayMs = 0): Promise<{answeredAt: number[]; received: Received[]; server: Server; url: string}> {
  const received: Received[] = []
  /** performance.now() of each answer */
  const answeredAt: number[] = []
  let n = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (d: Buffer) => chunks.push(d))
    req.on('end', () => {
      received.push({body: Buffer.concat(chunks), headers: req.headers})
      const status = statuses[Math.min(n++, statuses.length - 1)]
      setTimeout(() => {
        answeredAt.push(performance.now())
        res.writeHead(status).end()
      }, delayMs)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const address = server.address() as {port: number}
  return {answeredAt, received, server, url: `http://127.0.0.1:${address.port}/hooks/checkout`}
}

async function control(sb: RunningSandbox, path: string, body?: unknown): Promise<any> {
  const res = await request(`${sb.origin}/__sandbox/${path}`, {
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: {...controlHeaders(sb.token), ...(body === undefined ? {} : {'content-type': 'application/json'})},
    method: body === undefined ? 'GET' : 'POST',
  })
  return res.body.json()
}

/** Waits until the sandbox has logged `count` delivery attempts (bounded by the test's timeout); returns them. */
async function deliveries(sb: RunningSandbox, count: number): Promise<any[]> {
  for (;;) {
    const list = (await control(sb, 'webhook-deliveries')).deliveries as any[]
    if (list.length >= count) return list
    await new Promise((r) => setTimeout(r, 50))
  }
}

const minutesAfterStart = (at: string) => (Date.parse(at) - Date.parse(START)) / MINUTE

describe('sandbox webhook delivery', () => {
  const cleanup: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c()
  })

  async function sandboxWithHook(url: string): Promise<RunningSandbox> {
    const sb = await createSandbox({clock: START, modules: testModules, port: 0})
    cleanup.push(() => sb.close())
    await request(`${sb.origin}/checkout/v1/hooks`, {
      body: JSON.stringify({name: 'CHECKOUT_SUCCESS', url}),
      headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey), 'content-type': 'application/json'},
      method: 'POST',
    }).then((r) => r.body.dump())
    return sb
  }

  const pay = (sb: RunningSandbox, id: string) => request(`${sb.origin}/checkout/v1/checkouts/${id}/pay`, {method: 'POST'}).then((r) => r.body.dump())

  it('retries a receiver that answers 500 on the tenant\'s time: the 2nd attempt 5 minutes after the 1st, the 3rd 15 after that; one delivery id', async () => {
    const hook = await receiver([500, 500, 200])
    cleanup.push(() => new Promise((r) => hook.server.close(r)))
    const sb = await sandboxWithHook(hook.url)
    await pay(sb, 'chk_1')
    await deliveries(sb, 1)
    await control(sb, 'clock', {advance: '4m'})
    // nothing falls due before its time
    expect((await control(sb, 'webhook-deliveries')).deliveries).toHaveLength(1)
    await control(sb, 'clock', {advance: '1m'})
    await deliveries(sb, 2)
    await control(sb, 'clock', {advance: '15m'})
    const all = await deliveries(sb, 3)
    await sb.close()
    expect(all.map((d) => [d.attempt, d.status, d.outcome, minutesAfterStart(d.at) - minutesAfterStart(all[0].at)])).toEqual([
      [1, 500, 'retrying', 0],
      [2, 500, 'retrying', 5],
      [3, 200, 'delivered', 20],
    ])
    expect(new Set(all.map((d) => d.deliveryId)).size).toBe(1)
    expect(all[0]).toMatchObject({checkoutId: 'chk_1', event: 'CHECKOUT_SUCCESS', url: hook.url})
    expect(hook.received.map((r) => r.headers[DELIVERY_ATTEMPT_HEADER])).toEqual(['1', '2', '3'])
    expect(hook.received.map((r) => r.headers[DELIVERY_ID_HEADER])).toEqual(Array.from({length: 3}, () => all[0].deliveryId))
    expect(hook.received[0].headers['user-agent']).toBe(WEBHOOK_USER_AGENT)
    expect(JSON.parse(hook.received[2].body.toString())).toEqual({id: 'chk_1', status: 'COMPLETED'})
  })

  it('advancing 66 minutes past a failing receiver gives exactly 4 attempts, at 0, 5, 20 and 65 minutes, then gives up; a resend is byte-identical', async () => {
    const hook = await receiver([503])
    cleanup.push(() => new Promise((r) => hook.server.close(r)))
    const sb = await sandboxWithHook(hook.url)
    await pay(sb, 'chk_2')
    await deliveries(sb, 1)
    await control(sb, 'clock', {advance: '66m'})
    const all = await deliveries(sb, 4)
    // a fifth is never due: another day later, still 4
    await control(sb, 'clock', {advance: '1d'})
    const settled = await control(sb, 'webhook-deliveries?checkout=chk_2')
    expect(settled.deliveries).toHaveLength(4)
    expect(all.map((d) => [d.attempt, d.status, d.outcome, minutesAfterStart(d.at) - minutesAfterStart(all[0].at)])).toEqual([
      [1, 503, 'retrying', 0],
      [2, 503, 'retrying', 5],
      [3, 503, 'retrying', 20],
      [4, 503, 'gave-up', 65],
    ])
    const [id] = new Set(all.map((d) => d.deliveryId))
    expect(new Set(all.map((d) => d.deliveryId)).size).toBe(1)
    expect(hook.received).toHaveLength(4)

    const resent = await control(sb, `webhook-deliveries/${id}/resend`, {})
    expect(resent).toMatchObject({attempt: 5, deliveryId: id, outcome: 'resent', status: 503})
    expect(hook.received).toHaveLength(5)
    expect(hook.received[4].body.equals(hook.received[0].body)).toBe(true)
    expect(hook.received[4].headers[DELIVERY_ID_HEADER]).toBe(id)
    const unknown = await request(`${sb.origin}/__sandbox/webhook-deliveries/nope/resend`, {body: '{}', headers: {...controlHeaders(sb.token), 'content-type': 'application/json'}, method: 'POST'})
    expect(unknown.statusCode).toBe(404)
    await unknown.body.dump()
  })

  it('records a receiver that is not there, and never holds up the answer to the buyer', async () => {
    const hook = await receiver([200], 1500)
    cleanup.push(() => new Promise((r) => hook.server.close(r)))
    const sb = await sandboxWithHook(hook.url)
    const res = await request(`${sb.origin}/checkout/v1/checkouts/chk_3/pay`, {method: 'POST'})
    await res.body.dump()
    const answered = performance.now()
    expect(res.statusCode).toBe(200)
    // The buyer had the answer before the receiver (slow on purpose) answered the delivery.
    await deliveries(sb, 1)
    expect(hook.answeredAt[0]).toBeGreaterThan(answered)

    const gone = await sandboxWithHook('http://127.0.0.1:9/nothing')
    await pay(gone, 'chk_4')
    const failed = await deliveries(gone, 1)
    expect(failed[0]).toMatchObject({error: 'ECONNREFUSED', outcome: 'retrying', status: null})
  })
})
