/**
 * What falls due on a tenant's clock happens, in order, once, when the clock passes it: an unpaid
 * checkout's expiry (CHECKOUT_DROPOUT to the registered webhook) and a failed delivery's retries.
 * Driven as a user would: the CLI's commands against an in-process sandbox.
 */
import {createServer, type IncomingHttpHeaders} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import SandboxClock from '../../src/commands/sandbox/clock.js'
import WebhookDelete from '../../src/commands/webhook/delete.js'
import WebhookDeliveries from '../../src/commands/webhook/deliveries.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import WebhookResend from '../../src/commands/webhook/resend.js'
import {runJson as json, runCommand as run} from '../helpers/command.js'
import {listenOnLoopback} from '../helpers/loopback-servers.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

sandboxPerFile({clock: '2026-11-21T02:00:00Z'})

/** A merchant's receiver: answers `status()` and keeps each request's headers and exact bytes. */
let receiver: {origin: string; close(): Promise<void>}
const received: {headers: IncomingHttpHeaders; body: Buffer}[] = []
let answer = 200
beforeAll(async () => {
  receiver = await listenOnLoopback(
    createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        received.push({body: Buffer.concat(chunks), headers: req.headers})
        res.writeHead(answer).end()
      })
    }),
  )
})
afterAll(async () => {
  await receiver?.close()
})

async function newCheckout(): Promise<string> {
  return (await json(CheckoutCreate, ['--amount', '42.00', '--success-url', 'https://shop.example/ok'])).checkoutId
}

/** The checkout's delivery attempts once there are `count` (polled: they are made in the background). */
async function deliveriesOf(checkoutId: string, count: number): Promise<any[]> {
  for (;;) {
    const {deliveries} = await json(WebhookDeliveries, ['--checkout', checkoutId])
    if (deliveries.length >= count) return deliveries
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('due work on the sandbox clock', () => {
  it('an unpaid checkout expires as the clock passes its hour: CHECKOUT_DROPOUT once to the webhook, and it cannot be paid', async () => {
    const hook = await json(WebhookRegister, ['--name', 'CHECKOUT_DROPOUT', '--url', `${receiver.origin}/dropout`])
    try {
      const id = await newCheckout()
      await json(SandboxClock, ['--advance', '59m'])
      expect((await json(WebhookDeliveries, ['--checkout', id])).deliveries).toEqual([])

      // nothing reads the checkout: the clock passing its hour is enough
      await json(SandboxClock, ['--advance', '2m'])
      const [dropout] = await deliveriesOf(id, 1)
      expect(dropout).toMatchObject({attempt: 1, checkoutId: id, event: 'CHECKOUT_DROPOUT', outcome: 'delivered', status: 200})
      const mine = received.filter((r) => r.headers['x-checkout-delivery-id'] === dropout.deliveryId)
      expect(mine).toHaveLength(1)
      expect(JSON.parse(mine[0].body.toString())).toMatchObject({id, paymentStatus: 'PAYMENT_EXPIRED', status: 'EXPIRED'})

      expect(await json(CheckoutGet, [id])).toMatchObject({paymentStatus: 'PAYMENT_EXPIRED', status: 'EXPIRED'})
      const pay = await run(CheckoutPay, [id])
      expect(pay.code).toBe(5)
      expect(pay.stderr).toContain('This checkout has expired')
      // once: the read and another day change nothing
      await json(SandboxClock, ['--advance', '1d'])
      expect((await json(WebhookDeliveries, ['--checkout', id])).deliveries).toHaveLength(1)
    } finally {
      await run(WebhookDelete, [hook.id, '--yes'])
    }
  })

  it('real time passing does it too: a checkout 2 seconds short of its hour expires as those seconds pass, with nothing advanced or read', async () => {
    const hook = await json(WebhookRegister, ['--name', 'CHECKOUT_DROPOUT', '--url', `${receiver.origin}/dropout`])
    try {
      const id = await newCheckout()
      await json(SandboxClock, ['--advance', '3598s'])
      // polled, not slept: the sandbox's own beat finds it due once two real seconds have passed
      const [dropout] = await deliveriesOf(id, 1)
      expect(dropout).toMatchObject({checkoutId: id, event: 'CHECKOUT_DROPOUT', outcome: 'delivered'})
      expect(Date.parse(dropout.at)).toBeGreaterThanOrEqual(Date.parse((await json(CheckoutGet, [id])).expiredAt))
    } finally {
      await run(WebhookDelete, [hook.id, '--yes'])
    }
  })

  it('webhook deliveries lists the 4 attempts at 0, 5, 20 and 65 minutes of a failing receiver, one delivery id; webhook resend sends the same bytes', async () => {
    const hook = await json(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', `${receiver.origin}/paid`])
    answer = 503
    try {
      const id = await newCheckout()
      await json(CheckoutPay, [id])
      await deliveriesOf(id, 1)
      await json(SandboxClock, ['--advance', '66m'])
      const attempts = await deliveriesOf(id, 4)
      const first = Date.parse(attempts[0].at)
      expect(attempts.map((a) => [a.attempt, a.status, a.outcome, (Date.parse(a.at) - first) / 60_000])).toEqual([
        [1, 503, 'retrying', 0],
        [2, 503, 'retrying', 5],
        [3, 503, 'retrying', 20],
        [4, 503, 'gave-up', 65],
      ])
      const ids = new Set(attempts.map((a) => a.deliveryId))
      expect(ids.size).toBe(1)
      const [deliveryId] = ids
      const sent = received.filter((r) => r.headers['x-checkout-delivery-id'] === deliveryId)
      expect(sent.map((r) => r.headers['x-checkout-delivery-attempt'])).toEqual(['1', '2', '3', '4'])

      answer = 200
      const resent = await json(WebhookResend, [deliveryId])
      expect(resent).toMatchObject({attempt: 5, deliveryId, outcome: 'resent', status: 200})
      const again = received.filter((r) => r.headers['x-checkout-delivery-id'] === deliveryId)
      expect(again).toHaveLength(5)
      expect(again[4].body.equals(again[0].body)).toBe(true)
      expect((await run(WebhookResend, ['no-such-delivery'])).code).toBe(4)
    } finally {
      answer = 200
      await run(WebhookDelete, [hook.id, '--yes'])
    }
  })
})
