/**
 * The checkout service's probes of `sandbox diff`, in the order they run. Reads first (a list, an
 * unknown id, a key that is not the account's), then, with --yes, what creates and removes: a
 * checkout (never paid, it expires on its own), a webhook (deleted), and on two opsctl sandboxes
 * a paid checkout refunded the same day, and one refunded twice the next day (the clock moved,
 * then put back).
 */
import {randomBytes, randomUUID} from 'node:crypto'

import {checkoutOps, WEBHOOK_EVENTS} from '../../services/checkout/operations.js'
import {actAsBuyer} from '../checkout/buyer.js'
import {sandboxControl} from '../sandbox-control.js'
import {NotProbed, type Probe, type ProbeContext} from './probe.js'

/** Codes and statuses: the values an answer's reader branches on. */
const ERROR_ENUMS = ['code']
const CALLBACK_URL = 'https://example.invalid/opsctl-sandbox-diff'

function checkoutBody(value: string) {
  return {
    items: [{amount: {value}, name: 'opsctl sandbox diff', quantity: '1', totalAmount: {value}}],
    redirectUrl: {cancel: 'https://shop.example.com/cancel', failure: 'https://shop.example.com/failure', success: 'https://shop.example.com/success'},
    requestReferenceNumber: `opsctl-diff-${randomBytes(6).toString('hex')}`,
    totalAmount: {currency: 'PHP', value},
  }
}

/** A checkout paid on the sandbox's hosted page; voided at the end unless a refund already settled it. */
async function paidCheckout(ctx: ProbeContext, value: string, voidAtEnd: boolean): Promise<string> {
  const client = ctx.client('checkout')
  const {checkoutId} = (await client.call(checkoutOps.initiateCheckout, {body: checkoutBody(value)})).data
  await actAsBuyer(client, {action: 'pay', checkoutId})
  if (voidAtEnd) {
    ctx.cleanups.push({
      what: `paid checkout ${checkoutId}`,
      run: async () => {
        await client.call(checkoutOps.voidCheckout, {body: {reason: 'opsctl sandbox diff'}, params: {checkoutId}})
      },
    })
  }

  return checkoutId
}

export const checkoutProbes: readonly Probe[] = [
  {
    changes: false,
    name: 'checkout.webhooks',
    run: (ctx) => ctx.send(checkoutOps.listWebhooks),
    service: 'checkout',
    what: 'list the webhooks',
  },
  {
    changes: false,
    enums: ERROR_ENUMS,
    name: 'checkout.bad-key',
    run: (ctx) => ctx.send(checkoutOps.listWebhooks, {target: {secretKey: 'sk-opsctl-diff-not-a-key'}}),
    service: 'checkout',
    what: 'list the webhooks with a key that is not the account’s',
  },
  {
    changes: false,
    enums: ERROR_ENUMS,
    name: 'checkout.unknown-id',
    run: (ctx) => ctx.send(checkoutOps.getCheckout, {params: {checkoutId: randomUUID()}}),
    service: 'checkout',
    what: 'retrieve a checkout id that does not exist',
  },
  {
    changes: false,
    enums: ERROR_ENUMS,
    name: 'checkout.unknown-refunds',
    run: (ctx) => ctx.send(checkoutOps.listRefunds, {params: {checkoutId: randomUUID()}}),
    service: 'checkout',
    what: 'list the refunds of a checkout id that does not exist',
  },
  {
    changes: true,
    keeps: {checkoutId: 'checkoutId'},
    name: 'checkout.create',
    run: (ctx) => ctx.send(checkoutOps.initiateCheckout, {body: checkoutBody('150.00')}),
    service: 'checkout',
    what: 'initiate a checkout (never paid: it expires on its own)',
  },
  {
    changes: false,
    enums: ['status', 'paymentStatus', 'paymentType'],
    name: 'checkout.get',
    run: (ctx) => ctx.send(checkoutOps.getCheckout, {params: {checkoutId: ctx.values.checkoutId}}),
    service: 'checkout',
    uses: ['checkoutId'],
    what: 'retrieve the checkout just created',
  },
  {
    changes: true,
    enums: ERROR_ENUMS,
    name: 'checkout.invalid-body',
    // no items and no requestReferenceNumber: both required
    run: (ctx) => ctx.send(checkoutOps.initiateCheckout, {body: {totalAmount: {currency: 'PHP', value: '1.00'}}}),
    service: 'checkout',
    what: 'initiate a checkout without its required fields',
  },
  {
    changes: true,
    enums: ERROR_ENUMS,
    name: 'checkout.void-unknown',
    run: (ctx) => ctx.send(checkoutOps.voidCheckout, {body: {reason: 'opsctl sandbox diff'}, params: {checkoutId: randomUUID()}}),
    service: 'checkout',
    what: 'void a checkout id that does not exist',
  },
  {
    changes: true,
    name: 'webhook.register',
    async run(ctx) {
      const listed = (await ctx.client('checkout').call(checkoutOps.listWebhooks)).data
      const taken = new Set(listed.map((w) => w.name))
      const name = WEBHOOK_EVENTS.find((n) => !taken.has(n))
      if (!name) throw new NotProbed('every webhook event already has a webhook; none was registered')
      const answer = await ctx.send(checkoutOps.registerWebhook, {body: {callbackUrl: CALLBACK_URL, name}})
      const id = (answer.body as {id?: unknown})?.id
      if (answer.status === 200 && typeof id === 'string') {
        Object.assign(ctx.values, {webhookId: id, webhookName: name})
        ctx.cleanups.push({
          what: `webhook ${id}`,
          run: async () => {
            if (ctx.values.webhookId) await ctx.client('checkout').call(checkoutOps.deleteWebhook, {params: {webhookId: id}})
          },
        })
      }

      return answer
    },
    service: 'checkout',
    what: 'register a webhook for an event that has none',
  },
  {
    changes: true,
    enums: ERROR_ENUMS,
    name: 'webhook.register-again',
    run: (ctx) => ctx.send(checkoutOps.registerWebhook, {body: {callbackUrl: `${CALLBACK_URL}/again`, name: ctx.values.webhookName}}),
    service: 'checkout',
    uses: ['webhookName'],
    what: 'register a second webhook for the same event',
  },
  {
    changes: true,
    name: 'webhook.delete',
    async run(ctx) {
      const answer = await ctx.send(checkoutOps.deleteWebhook, {params: {webhookId: ctx.values.webhookId}})
      // deleted: nothing left for the clean-up
      if (answer.status === 200) delete ctx.values.webhookId
      return answer
    },
    service: 'checkout',
    uses: ['webhookId'],
    what: 'delete that webhook',
  },
  {
    changes: true,
    enums: ERROR_ENUMS,
    name: 'refund.same-day',
    needs: ['sandbox'],
    async run(ctx) {
      const checkoutId = await paidCheckout(ctx, '80.00', true)
      return ctx.send(checkoutOps.refundCheckout, {body: {amount: {currency: 'PHP', value: '10.00'}, reason: 'opsctl sandbox diff'}, params: {checkoutId}})
    },
    service: 'checkout',
    what: 'refund a checkout paid today (only a void is possible)',
  },
  {
    changes: true,
    enums: ERROR_ENUMS,
    name: 'refund.second',
    needs: ['sandbox'],
    async run(ctx) {
      const checkoutId = await paidCheckout(ctx, '120.00', false)
      await nextDay(ctx)
      const client = ctx.client('checkout')
      await client.call(checkoutOps.refundCheckout, {body: {amount: {currency: 'PHP', value: '20.00'}, reason: 'opsctl sandbox diff'}, params: {checkoutId}})
      return ctx.send(checkoutOps.refundCheckout, {body: {amount: {currency: 'PHP', value: '20.00'}, reason: 'opsctl sandbox diff'}, params: {checkoutId}})
    },
    service: 'checkout',
    what: 'refund a checkout the next day, then refund it again (one refund per checkout)',
  },
]

/** Moves the sandbox's clock a day on, and puts it back at the end (what the probes left moves back with it). */
async function nextDay(ctx: ProbeContext): Promise<void> {
  const sandbox = ctx.side.sandbox!
  const {transport} = ctx.side
  await sandboxControl(transport, sandbox, 'POST', 'clock', {advance: '24h'})
  ctx.cleanups.push({
    what: 'the sandbox clock, 24 h ahead',
    async run() {
      const {now} = await sandboxControl(transport, sandbox, 'GET', 'clock')
      await sandboxControl(transport, sandbox, 'POST', 'clock', {set: new Date(Date.parse(now) - 86_400_000).toISOString()})
    },
  })
}
