import {createServer, type Server} from 'node:http'
import {request} from 'undici'
import {afterEach, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {WebhookDeliveries} from '../../src/sandbox/core/webhooks.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'

/** A receiver that answers with the given statuses in turn (the last one repeats), after an optional delay. */
async function receiver(statuses: number[], delayMs = 0): Promise<{answeredAt: number[]; bodies: unknown[]; server: Server; url: string}> {
  const bodies: unknown[] = []
  /** performance.now() of each answer */
  const answeredAt: number[] = []
  let n = 0
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (d) => (text += d))
    req.on('end', () => {
      bodies.push(JSON.parse(text))
      const status = statuses[Math.min(n++, statuses.length - 1)]
      setTimeout(() => {
        answeredAt.push(performance.now())
        res.writeHead(status).end()
      }, delayMs)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const address = server.address() as {port: number}
  return {answeredAt, bodies, server, url: `http://127.0.0.1:${address.port}/hooks/checkout`}
}

/** Waits until the sandbox has recorded `count` delivery attempts (bounded by the test's timeout); returns them. */
async function deliveries(sb: RunningSandbox, count: number): Promise<any[]> {
  for (;;) {
    const res = await request(`${sb.origin}/__sandbox/webhook-deliveries`, {headers: controlHeaders(sb.token)})
    const list = ((await res.body.json()) as {deliveries: any[]}).deliveries
    if (list.length >= count) return list
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('sandbox webhook delivery', () => {
  const cleanup: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c()
  })

  async function sandboxWithHook(url: string): Promise<RunningSandbox> {
    const sb = await createSandbox({port: 0, modules: testModules})
    cleanup.push(() => sb.close())
    await request(`${sb.origin}/checkout/v1/hooks`, {
      body: JSON.stringify({name: 'CHECKOUT_SUCCESS', url}),
      headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey), 'content-type': 'application/json'},
      method: 'POST',
    }).then((r) => r.body.dump())
    return sb
  }

  it('retries a receiver that answers 500 twice then 200: exactly 3 attempts, all recorded', async () => {
    const hook = await receiver([500, 500, 200])
    cleanup.push(() => new Promise((r) => hook.server.close(r)))
    const sb = await sandboxWithHook(hook.url)
    await request(`${sb.origin}/checkout/v1/checkouts/chk_1/pay`, {method: 'POST'}).then((r) => r.body.dump())
    const all = await deliveries(sb, 3)
    // close() waits for the deliveries under way: any attempt after the 200 would reach the receiver first.
    await sb.close()
    expect(hook.bodies).toHaveLength(3)
    expect(all).toHaveLength(3)
    expect(all.map((d) => [d.attempt, d.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ])
    expect(all[0]).toMatchObject({checkoutId: 'chk_1', event: 'CHECKOUT_SUCCESS', url: hook.url})
    expect(hook.bodies).toHaveLength(3)
    expect(hook.bodies[2]).toEqual({id: 'chk_1', status: 'COMPLETED'})
  })

  it('gives up after 4 attempts at a receiver that always fails', async () => {
    const hook = await receiver([503])
    cleanup.push(() => new Promise((r) => hook.server.close(r)))
    const sb = await sandboxWithHook(hook.url)
    await request(`${sb.origin}/checkout/v1/checkouts/chk_2/pay`, {method: 'POST'}).then((r) => r.body.dump())
    const all = await deliveries(sb, 4)
    // close() waits for the deliveries under way: a fifth attempt would reach the receiver first.
    await sb.close()
    expect(all.map((d) => d.status)).toEqual([503, 503, 503, 503])
    expect(hook.bodies).toHaveLength(4)
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
    await request(`${gone.origin}/checkout/v1/checkouts/chk_4/pay`, {method: 'POST'}).then((r) => r.body.dump())
    const failed = await deliveries(gone, 1)
    expect(failed[0]).toMatchObject({error: 'ECONNREFUSED', status: null})
  })

  it('an attempt that outlives its own limit is recorded as a timeout and tried again', async () => {
    let n = 0
    const server = createServer((req, res) => {
      req.resume()
      // The first attempt gets no answer at all; the second one gets its 200.
      if (n++ > 0) req.on('end', () => res.writeHead(200).end())
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    cleanup.push(async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    })
    const clock = {advance() {}, now: () => new Date('2027-01-01T00:00:00Z'), set() {}}
    const deliveries = new WebhookDeliveries(clock, {firstDelayMs: 10, maxAttempts: 3, timeoutMs: 300})
    const settled = new Promise<void>((r) => deliveries.deliver({checkoutId: 'chk_5', payload: {id: 'chk_5'}, type: 'CHECKOUT_SUCCESS'}, `http://127.0.0.1:${(server.address() as {port: number}).port}/hook`, r))
    await settled
    await deliveries.settle()
    expect(deliveries.attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [1, null, 'timeout'],
      [2, 200, undefined],
    ])
  })
})
