/**
 * The checkout service's probes of `sandbox diff`, in the order they run. Reads first (a list, an
 * unknown id, a key that is not the account's), then, with --yes, what creates and removes: a
 * checkout (never paid, it expires on its own), a webhook (deleted), and on two opsctl sandboxes
 * a paid checkout refunded the same day, and one refunded twice the next day (in a tenant made for
 * that probe, whose clock is moved a day on: a sandbox clock only moves forward, so the profile's
 * own is never moved).
 */
import {randomBytes, randomUUID} from 'node:crypto'

import {checkoutOps, WEBHOOK_EVENTS} from '../../services/checkout/operations.js'
import {actAsBuyer} from '../checkout/buyer.js'
import {removeOnSignal} from '../remove-on-signal.js'
import {sandboxControl} from '../sandbox-control.js'
import {createTenant, deleteTenant, tenantProfile} from '../sandbox-tenants.js'
import {type DiffSide, NotProbed, type Probe, probeContext, type ProbeContext} from './probe.js'

/** Codes and statuses: the values an answer's reader branches on. */
const ERROR_ENUMS = ['code']
const CALLBACK_URL = 'https://example.invalid/opsctl-sandbox-diff'
/** A probe's own tenant expires by itself even when the run is killed before deleting it. */
const PROBE_TENANT_TTL_SECONDS = 600

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
    run: (ctx) =>
      inProbeTenant(ctx, async (tenant) => {
        const checkoutId = await paidCheckout(tenant, '120.00', false)
        await sandboxControl(tenant.side.transport, tenant.side.sandbox!, 'POST', 'clock', {advance: '24h'})
        const client = tenant.client('checkout')
        await client.call(checkoutOps.refundCheckout, {body: {amount: {currency: 'PHP', value: '20.00'}, reason: 'opsctl sandbox diff'}, params: {checkoutId}})
        return tenant.send(checkoutOps.refundCheckout, {body: {amount: {currency: 'PHP', value: '20.00'}, reason: 'opsctl sandbox diff'}, params: {checkoutId}})
      }),
    service: 'checkout',
    what: 'refund a checkout the next day, then refund it again (one refund per checkout)',
  },
]

/**
 * Runs `work` in a tenant made for it on the side's sandbox (reached through the side's own origin,
 * so a proxy in front of it sees the probe too), deleted after. A clock moves only forward: a probe
 * that needs the next day moves its own tenant's, never the profile's. A tenant that could not be
 * deleted is left to the clean-ups, and expires by itself; Ctrl-C or SIGTERM meanwhile deletes it first.
 */
async function inProbeTenant<T>(ctx: ProbeContext, work: (tenant: ProbeContext) => Promise<T>): Promise<T> {
  const {sandbox, transport} = ctx.side
  const control = {origin: sandbox!.origin, token: sandbox!.token}
  const tenant = await createTenant(transport, control, false, PROBE_TENANT_TTL_SECONDS)
  const {checkout} = tenantProfile(control.origin, tenant)
  const side: DiffSide = {
    ...ctx.side,
    sandbox: {...control, tenant: tenant.id},
    targets: {...ctx.side.targets, checkout: {baseUrl: checkout!.baseUrl, profileName: `tenant ${tenant.id}`, publicKey: tenant.publicKey, secretKey: tenant.secretKey, service: 'checkout'}},
  }
  const deleteIt = () => deleteTenant(transport, control, tenant.id)
  const onSignal = removeOnSignal(deleteIt)
  const remove = async () => {
    await deleteIt()
  }

  try {
    return await work(probeContext(side))
  } finally {
    onSignal()
    await remove().catch(() => ctx.cleanups.push({run: remove, what: `tenant ${tenant.id} (it expires by itself at ${tenant.expiresAt})`}))
  }
}
