import {randomBytes} from 'node:crypto'

import type {ServiceClient} from '../../http/client.js'
import type {EventReceiver} from './receiver.js'

import {ApiError} from '../../errors.js'
import {registerSecret} from '../../http/secrets/registry.js'
import {checkoutOps, checkoutService, type CustomizationRequest, WEBHOOK_EVENTS} from '../../services/checkout/operations.js'
import {CODES} from '../../services/checkout/rules.js'
import {actAsBuyer} from '../checkout/buyer.js'
import {sandboxControl, type SandboxControlTarget} from '../sandbox-control.js'
import {createTenant, deleteTenant, tenantCheckoutTarget} from '../sandbox-tenants.js'
import {check, checkEqual, type SmokeContext, type SmokeStep, stepsOf} from './runner.js'

const CUSTOMIZATION: CustomizationRequest = {
  appleTouchIconUrl: 'https://cdn.example.com/opsctl-smoke/touch.png',
  colorScheme: '#0a7d3b',
  customTitle: 'opsctl smoke',
  iconUrl: 'https://cdn.example.com/opsctl-smoke/favicon.ico',
  logoUrl: 'https://cdn.example.com/opsctl-smoke/logo.png',
}

function checkoutBody(value: string) {
  const unit = (Number(value) / 2).toFixed(2)
  return {
    items: [{amount: {value: unit}, name: 'opsctl smoke tea', quantity: '2', totalAmount: {value}}],
    redirectUrl: {
      cancel: 'https://shop.example.com/cancel',
      failure: 'https://shop.example.com/failure',
      success: 'https://shop.example.com/success',
    },
    requestReferenceNumber: `opsctl-smoke-${randomBytes(6).toString('hex')}`,
    totalAmount: {currency: 'PHP', value},
  }
}

async function paidCheckout(checkout: ServiceClient, value: string): Promise<string> {
  const created = await checkout.call(checkoutOps.initiateCheckout, {body: checkoutBody(value)})
  const paid = await actAsBuyer(checkout, {action: 'pay', checkoutId: created.data.checkoutId})
  checkEqual(paid.paymentStatus, 'PAYMENT_SUCCESS', 'payment status')
  return created.data.checkoutId
}

/** How long a next-day tenant lives when smoke is killed before it deletes it: longer than any run. */
const NEXT_DAY_TTL_SECONDS = 3600

/**
 * The next day happens on a tenant made for it: a sandbox's clock moves forward only, so moving the
 * run's own would leave it a day ahead (and its health session expired, with clean-ups still to
 * run). The tenant is deleted at the end with all it holds; its TTL removes it if smoke is killed.
 */
async function nextDayTenant(ctx: SmokeContext): Promise<{checkout: ServiceClient; control: SandboxControlTarget}> {
  const sandbox = ctx.sandbox!
  const tenant = await createTenant(ctx.checkout.transport, sandbox, false, NEXT_DAY_TTL_SECONDS)
  registerSecret(tenant.secretKey)
  ctx.cleanups.push({name: `delete tenant ${tenant.id}`, run: () => deleteTenant(ctx.checkout.transport, sandbox, tenant.id).then(() => undefined)})
  ctx.nextDay = ctx.clientFor(tenantCheckoutTarget(tenant))
  return {checkout: ctx.nextDay, control: {origin: sandbox.origin, tenant: tenant.id, token: sandbox.token}}
}

const notFound = (error: unknown) => error instanceof ApiError && error.status === 404

/**
 * Every checkout operation (13). Against any profile it creates a checkout (it expires on its
 * own), and changes webhooks and the page customization only to put back what was there. The
 * steps that need a buyer or the clock (pay, void, next-day refund, webhook delivery) run only on
 * a sandbox, where a loopback receiver can get the webhook.
 */
export function checkoutSteps(receiver: EventReceiver | undefined): SmokeStep[] {
  return stepsOf(checkoutService, {
    setCustomization: {
      name: 'set the page customization',
      run: async (ctx) => {
        const previous = await ctx.checkout.call(checkoutOps.getCustomization).then(
          (r) => r.data,
          (error) => {
            if (notFound(error)) return undefined
            throw error
          },
        )
        const res = await ctx.checkout.call(checkoutOps.setCustomization, {body: CUSTOMIZATION})
        ctx.cleanups.push({
          name: previous ? 'restore the page customization' : 'remove the page customization',
          run: async () => {
            if (previous) await ctx.checkout.call(checkoutOps.setCustomization, {body: previous as CustomizationRequest})
            else
              await ctx.checkout
                .call(checkoutOps.removeCustomization)
                .catch((error) => (notFound(error) ? undefined : Promise.reject(error)))
          },
        })
        checkEqual(res.data.customTitle, CUSTOMIZATION.customTitle, 'customTitle')
        ctx.values.customized = true
        return res.requestId
      },
    },
    getCustomization: {
      name: 'read the customization back',
      run: async (ctx) => {
        const res = await ctx.checkout.call(checkoutOps.getCustomization)
        checkEqual([res.data.logoUrl, res.data.colorScheme], [CUSTOMIZATION.logoUrl, CUSTOMIZATION.colorScheme], 'customization')
        return res.requestId
      },
      needs: ['customized'],
    },
    listWebhooks: {
      name: 'list webhooks',
      run: async (ctx) => {
        const res = await ctx.checkout.call(checkoutOps.listWebhooks)
        check(Array.isArray(res.data), 'the answer is not a list')
        const taken = new Set(res.data.map((w) => w.name))
        const free = WEBHOOK_EVENTS.find((n) => n === 'CHECKOUT_SUCCESS' && !taken.has(n)) ?? WEBHOOK_EVENTS.find((n) => !taken.has(n))
        if (free) ctx.values.webhookName = free
        return res.requestId
      },
    },
    registerWebhook: {
      name: 'register a webhook',
      run: async (ctx) => {
        const callbackUrl = receiver?.url ?? 'https://example.invalid/opsctl-smoke'
        const res = await ctx.checkout.call(checkoutOps.registerWebhook, {body: {callbackUrl, name: ctx.values.webhookName}})
        ctx.cleanups.push({
          name: `delete webhook ${res.data.id}`,
          run: async () => {
            await ctx.checkout
              .call(checkoutOps.deleteWebhook, {params: {webhookId: res.data.id}})
              .catch((error) => (notFound(error) ? undefined : Promise.reject(error)))
          },
        })
        checkEqual([res.data.name, res.data.callbackUrl], [ctx.values.webhookName, callbackUrl], 'webhook')
        ctx.values.webhookId = res.data.id
        return res.requestId
      },
      needs: ['webhookName'],
    },
    updateWebhook: {
      name: 'update the webhook',
      run: async (ctx) => {
        const callbackUrl = `${receiver?.url ?? 'https://example.invalid/opsctl-smoke'}?v=2`
        const res = await ctx.checkout.call(checkoutOps.updateWebhook, {
          body: {callbackUrl, name: ctx.values.webhookName},
          params: {webhookId: ctx.values.webhookId},
        })
        checkEqual([res.data.id, res.data.callbackUrl], [ctx.values.webhookId, callbackUrl], 'webhook')
        return res.requestId
      },
      needs: ['webhookId'],
    },
    initiateCheckout: {
      name: 'initiate a checkout',
      run: async (ctx) => {
        const body = checkoutBody('150.00')
        const res = await ctx.checkout.call(checkoutOps.initiateCheckout, {body})
        check(res.data.checkoutId, 'no checkoutId')
        check(/^https?:\/\//.test(res.data.redirectUrl), `redirectUrl is not a URL: ${res.data.redirectUrl}`)
        Object.assign(ctx.values, {checkoutId: res.data.checkoutId, reference: body.requestReferenceNumber})
        return res.requestId
      },
    },
    getCheckout: {
      name: 'retrieve the checkout',
      run: async (ctx) => {
        const res = await ctx.checkout.call(checkoutOps.getCheckout, {params: {checkoutId: ctx.values.checkoutId}})
        checkEqual(
          [res.data.id, res.data.status, res.data.totalAmount?.value, res.data.requestReferenceNumber],
          [ctx.values.checkoutId, 'CREATED', '150.00', ctx.values.reference],
          'checkout',
        )
        return res.requestId
      },
      needs: ['checkoutId'],
    },
    'hosted payment page': {
      name: 'pay on the hosted page',
      request: {auth: 'none', method: 'POST', path: '/pay/{checkoutId}', service: 'checkout'},
      run: async (ctx) => {
        const paid = await actAsBuyer(ctx.checkout, {action: 'pay', checkoutId: ctx.values.checkoutId})
        checkEqual([paid.status, paid.paymentStatus], ['COMPLETED', 'PAYMENT_SUCCESS'], 'checkout after payment')
        ctx.values.paid = true
        return undefined
      },
      needs: ['checkoutId'],
      sandboxOnly: true,
    },
    // Sends nothing itself: waits for the sandbox's delivery at the local receiver.
    'CHECKOUT_SUCCESS webhook': {
      name: 'the webhook is delivered',
      run: async (ctx) => {
        check(ctx.values.webhookName === 'CHECKOUT_SUCCESS', 'no CHECKOUT_SUCCESS webhook of ours to deliver to')
        const event = await receiver?.waitFor(ctx.values.checkoutId, 5000)
        check(event, `no webhook for checkout ${ctx.values.checkoutId} arrived within 5 s`)
        checkEqual(event.event, 'CHECKOUT_SUCCESS', 'event')
        return undefined
      },
      needs: ['paid', 'webhookId'],
      sandboxOnly: true,
    },
    voidCheckout: {
      name: 'void it the same day',
      run: async (ctx) => {
        const res = await ctx.checkout.call(checkoutOps.voidCheckout, {
          body: {reason: 'opsctl smoke'},
          params: {checkoutId: ctx.values.checkoutId},
        })
        checkEqual(res.data.voidStatus, 'SUCCESS', 'voidStatus')
        const after = await ctx.checkout.call(checkoutOps.getCheckout, {params: {checkoutId: ctx.values.checkoutId}})
        checkEqual(after.data.paymentStatus, 'VOIDED', 'paymentStatus after the void')
        return res.requestId
      },
      needs: ['paid'],
      sandboxOnly: true,
    },
    refundCheckout: {
      name: 'refund part of a payment the next day',
      run: async (ctx) => {
        const {checkout, control} = await nextDayTenant(ctx)
        const checkoutId = await paidCheckout(checkout, '200.00')
        await sandboxControl(checkout.transport, control, 'POST', 'clock', {advance: '24h'})
        const voidLate = await checkout.call(checkoutOps.voidCheckout, {body: {reason: 'too late'}, params: {checkoutId}}).then(
          () => undefined,
          (error) => error,
        )
        check(voidLate instanceof ApiError && voidLate.code === CODES.voidAfterCutoff, 'a void the next day was not refused with PY0073')
        const res = await checkout.call(checkoutOps.refundCheckout, {
          body: {amount: {currency: 'PHP', value: '50.00'}, reason: 'opsctl smoke'},
          params: {checkoutId},
        })
        checkEqual(res.data.status, 'SUCCESS', 'refund status')
        Object.assign(ctx.values, {refundCheckoutId: checkoutId, refundId: res.data.refundId})
        return res.requestId
      },
      control: true,
      sandboxOnly: true,
    },
    listRefunds: {
      name: 'list the refunds',
      run: async (ctx) => {
        const res = await ctx.nextDay!.call(checkoutOps.listRefunds, {params: {checkoutId: ctx.values.refundCheckoutId}})
        checkEqual(
          res.data.map((r) => [r.id, r.amount?.value, r.status]),
          [[ctx.values.refundId, '50.00', 'SUCCESS']],
          'refunds',
        )
        return res.requestId
      },
      needs: ['refundId'],
    },
    getRefund: {
      name: 'get the refund',
      run: async (ctx) => {
        const res = await ctx.nextDay!.call(checkoutOps.getRefund, {
          params: {checkoutId: ctx.values.refundCheckoutId, refundId: ctx.values.refundId},
        })
        checkEqual(
          [res.data.id, res.data.checkout, res.data.reason],
          [ctx.values.refundId, ctx.values.refundCheckoutId, 'opsctl smoke'],
          'refund',
        )
        return res.requestId
      },
      needs: ['refundId'],
    },
    deleteWebhook: {
      name: 'delete the webhook',
      run: async (ctx) => {
        const res = await ctx.checkout.call(checkoutOps.deleteWebhook, {params: {webhookId: ctx.values.webhookId}})
        checkEqual(res.data.id, ctx.values.webhookId, 'deleted id')
        const left = await ctx.checkout.call(checkoutOps.listWebhooks)
        check(!left.data.some((w) => w.id === ctx.values.webhookId), 'the webhook is still listed')
        return res.requestId
      },
      needs: ['webhookId'],
    },
    removeCustomization: {
      name: 'remove the customization',
      run: async (ctx) => {
        const res = await ctx.checkout.call(checkoutOps.removeCustomization)
        const after = await ctx.checkout.call(checkoutOps.getCustomization).then(
          () => 'still there',
          (error) => (notFound(error) ? 'gone' : Promise.reject(error)),
        )
        checkEqual(after, 'gone', 'customization after removal')
        return res.requestId
      },
      needs: ['customized'],
    },
  })
}
