import type {FastifyInstance, FastifyReply} from 'fastify'

import type {ContextOf, SandboxContext, SandboxEvent} from '../types.js'
import type {StoredCheckout} from './state.js'

import {checkoutService} from '../../services/checkout/operations.js'
import {lastFour} from '../../services/checkout/test-cards.js'
import {sandboxModule} from '../types.js'
import {checkoutAnswerHeaders, checkoutAuthentication, checkoutErrors} from './auth.js'
import {registerCors} from './cors.js'
import {CHECKOUT_PREFIX, checkoutHandlers, checkoutState, createCheckout, expireDue, expiringCheckout, saveCheckout, webhookFor} from './handlers.js'
import {PAGE_HEADERS, type PageReply, showPaymentPage, submitPaymentForm} from './page.js'
import {SEEDED_REFERENCES, seededCheckouts} from './seeded.js'
import {CHECKOUT_DOCS, CheckoutStore} from './state.js'

/**
 * What a change of a checkout reads (a request to its routes, its expiry): the checkout and its
 * refunds, the settings, and the webhooks (for the events it raises).
 */
function checkoutDocs(checkoutId: string | undefined) {
  const D = CHECKOUT_DOCS
  const settings = [D.customization, D.refundOutcomes].map((key) => ({collection: D.settings, key}))
  const own = checkoutId === undefined ? [] : [D.checkouts, D.refunds].map((collection) => ({collection, key: checkoutId}))
  return [...own, ...settings, {collection: D.webhooks, key: null}]
}

function sendPage(reply: FastifyReply, ctx: SandboxContext, page: PageReply): FastifyReply {
  reply.header('date', ctx.clock.now().toUTCString()).headers(PAGE_HEADERS)
  if (page.location) return reply.code(page.status).header('location', page.location).send()
  return reply
    .code(page.status)
    .type('text/html; charset=utf-8')
    .send(page.html ?? '')
}

/** A paid checkout (as if paid by the Mastercard test card), for `--seed`. */
async function seedPaidCheckout(ctx: SandboxContext, ref: string, paidAt: Date): Promise<StoredCheckout> {
  const checkout = await createCheckout(ctx, {
    totalAmount: {value: '1500.00', currency: 'PHP'},
    items: [
      {name: 'Tea', quantity: '2', amount: {value: '500.00'}, totalAmount: {value: '1000.00'}},
      {name: 'Cake', quantity: '1', amount: {value: '500.00'}, totalAmount: {value: '500.00'}},
    ],
    requestReferenceNumber: ref,
    buyer: {firstName: 'Ana', lastName: 'Reyes', contact: {email: 'ana@example.com'}},
  })
  Object.assign(checkout, {
    status: 'COMPLETED',
    paymentStatus: 'PAYMENT_SUCCESS',
    paymentType: 'CREDIT_CARD',
    paymentScheme: 'MASTERCARD',
    receiptNumber: ctx.hex(12),
    createdAt: paidAt.toISOString(),
    updatedAt: paidAt.toISOString(),
    expiredAt: new Date(paidAt.getTime() + 60 * 60 * 1000).toISOString(),
    paymentDetails: {paymentAt: paidAt.toISOString(), scheme: 'MASTERCARD', last4: lastFour('5123456789012346')},
  })
  await saveCheckout(ctx, checkout)
  return checkout
}

/**
 * The checkout service in the sandbox: every operation of the table (handlers.ts), the hosted
 * payment page (page.ts) under `/checkout/pay/<id>`, CORS for the public-key routes (cors.ts), a control route to make the next refunds
 * fail, and demo data.
 */
export const checkoutModule = sandboxModule({
  service: checkoutService,
  prefix: CHECKOUT_PREFIX,
  handlers: checkoutHandlers,
  openState: (store) => new CheckoutStore(store),
  authenticate: checkoutAuthentication,
  errors: checkoutErrors,
  answerHeaders: checkoutAnswerHeaders,

  routes(app: FastifyInstance, ctxOf: ContextOf) {
    // A merchant's page may create a checkout with the public key (cors.ts); no other route is granted to pages.
    registerCors(app, CHECKOUT_PREFIX, checkoutService)
    // The page's form posts application/x-www-form-urlencoded: the core parses it (null-prototype records).
    app.get<{Params: {checkoutId: string}}>(`${CHECKOUT_PREFIX}/pay/:checkoutId`, async (req, reply) =>
      sendPage(reply, ctxOf(req), await showPaymentPage(ctxOf(req), req.params.checkoutId)),
    )
    app.post<{Params: {checkoutId: string}}>(`${CHECKOUT_PREFIX}/pay/:checkoutId`, async (req, reply) => {
      const form = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {}
      return sendPage(reply, ctxOf(req), await submitPaymentForm(ctxOf(req), req.params.checkoutId, form))
    })
  },

  control(app: FastifyInstance, ctxOf: ContextOf) {
    /** The seeded paid checkouts (none unless started with --seed), with what the rules allow on each now. */
    app.get('/__sandbox/checkout/seeded', async (req) => ({checkouts: await seededCheckouts(ctxOf(req))}))

    /** `{"status": "FAILED", "count": 1}`: the next refund(s) get that status (kept in the list, not counted). */
    app.post<{Body: {status?: string; count?: number}}>('/__sandbox/checkout/next-refund', async (req, reply) => {
      const status = req.body?.status ?? 'FAILED'
      const count = req.body?.count ?? 1
      if ((status !== 'FAILED' && status !== 'SUCCESS') || !Number.isInteger(count) || count < 1 || count > 100) {
        return reply.code(400).send({error: 'expected {"status": "FAILED"|"SUCCESS", "count": 1..100}'})
      }

      const {refundOutcomes} = checkoutState(ctxOf(req))
      const outcomes = [...await refundOutcomes.get(), ...Array.from({length: count}, () => status)]
      await refundOutcomes.set(outcomes)
      return {refundOutcomes: outcomes}
    })
  },

  due: expireDue,
  dueDocs: (work) => checkoutDocs(expiringCheckout(work)),
  prefetch: ({params}) => checkoutDocs(params.checkoutId),

  /** The core delivers each checkout event to the one webhook registered for its name. */
  async webhookTarget(event: SandboxEvent, ctx: SandboxContext) {
    return (await webhookFor(ctx, event.type))?.callbackUrl
  },

  async seed(ctx: SandboxContext) {
    const now = ctx.clock.now()
    // One paid today (it can be voided) and one paid two days ago (only a refund).
    const [today, earlier] = SEEDED_REFERENCES
    await seedPaidCheckout(ctx, today, now)
    await seedPaidCheckout(ctx, earlier, new Date(now.getTime() - 2 * 24 * 60 * 60 * 1000))
  },
})
