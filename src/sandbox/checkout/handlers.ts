import type {Handler, HandlersFor, SandboxContext} from '../types.js'
import type {CheckoutStore, StoredCheckout, StoredRefund, StoredWebhook} from './state.js'

import {type Cents, formatCents, parseAmount} from '../../services/checkout/money.js'
/**
 * The checkout service's behaviour in the sandbox: one plain function per operation over
 * `ctx.state.checkout` (the module's repositories: a changed record is saved with `set`), enforcing the rules of src/services/checkout/rules.ts (the same functions the
 * CLI uses to refuse early). All time comes from `ctx.clock.now()` (the core dates every answer
 * with it too). Each returns the answer's body; the core sends it with the row's success status.
 */
import {checkoutService} from '../../services/checkout/operations.js'
import {CHECKOUT_TTL_MS, checkRefund, checkVoid, CODES, isExpired, refundedCents, RuleViolation} from '../../services/checkout/rules.js'
import {SandboxError} from '../types.js'

/** The checkout prefix on the sandbox origin; the hosted page lives under it. */
export const CHECKOUT_PREFIX = '/checkout'

/** The checkout module's repositories. */
export function checkoutState(ctx: SandboxContext): CheckoutStore {
  return ctx.state.checkout
}

/** Saves a checkout changed in place. */
export async function saveCheckout(ctx: SandboxContext, checkout: StoredCheckout): Promise<void> {
  await checkoutState(ctx).checkouts.set(checkout.id, checkout)
}

type Ops = typeof checkoutService.operations

function refuse(violation: RuleViolation): SandboxError {
  return new SandboxError(violation.status, violation.code, violation.serviceMessage)
}

const iso = (ctx: SandboxContext) => ctx.clock.now().toISOString()
/** A deep copy: what leaves the sandbox never aliases its state. */
const copy = <T>(value: T): T => structuredClone(value)

export function hostedPageUrl(ctx: SandboxContext, checkoutId: string): string {
  return `${ctx.origin()}${CHECKOUT_PREFIX}/pay/${encodeURIComponent(checkoutId)}`
}

export async function findCheckout(ctx: SandboxContext, checkoutId: string): Promise<StoredCheckout> {
  const checkout = await checkoutState(ctx).checkouts.get(checkoutId)
  if (!checkout) throw new SandboxError(404, CODES.notFound, `Checkout ${checkoutId} not found`)
  await refreshExpiry(ctx, checkout)
  return checkout
}

/**
 * An unpaid checkout past its hour becomes a dropout: as the tenant's clock passes that hour (its
 * expiry is scheduled when it is created: `expireDue`), or at the first read after it, whichever
 * comes first; CHECKOUT_DROPOUT is raised once, by the one that changes it.
 */
export async function refreshExpiry(ctx: SandboxContext, checkout: StoredCheckout): Promise<void> {
  if (!isExpired(checkout, ctx.clock.now())) return
  checkout.status = 'EXPIRED'
  checkout.paymentStatus = 'PAYMENT_EXPIRED'
  checkout.updatedAt = checkout.expiredAt
  await saveCheckout(ctx, checkout)
  await ctx.emit({type: 'CHECKOUT_DROPOUT', checkoutId: checkout.id, payload: copy(checkout)})
}

// ---------------------------------------------------------------------------------------------
// Checkouts
// ---------------------------------------------------------------------------------------------

interface CheckoutBody {
  totalAmount: {value: string; currency: string; details?: Record<string, unknown>}
  items: Record<string, unknown>[]
  requestReferenceNumber: string
  [extra: string]: unknown
}

/** Creates a checkout record (also used by seed). The body has passed the operation's schema. */
export async function createCheckout(ctx: SandboxContext, body: CheckoutBody): Promise<StoredCheckout> {
  const total = parseAmount(body.totalAmount.value, 'totalAmount.value')
  if (total <= 0n) {
    throw new SandboxError(400, 'PY0001', 'totalAmount.value must be greater than 0.00', [
      {field: 'totalAmount.value', description: 'must be greater than 0.00'},
    ])
  }

  const now = ctx.clock.now()
  const id = ctx.id('chk')
  const checkout: StoredCheckout = {
    ...copy(body),
    id,
    status: 'CREATED',
    paymentStatus: 'PENDING_PAYMENT',
    isAutoRedirect: true,
    refundedAmount: '0.00',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiredAt: new Date(now.getTime() + CHECKOUT_TTL_MS).toISOString(),
  }
  await checkoutState(ctx).checkouts.set(id, checkout)
  await ctx.schedule(checkoutService.name, new Date(checkout.expiredAt), {expire: id} satisfies ExpiryJob, id)
  return checkout
}

interface ExpiryJob {
  expire: string
}

/** The checkout an expiry job is for. */
export function expiringCheckout(work: unknown): string | undefined {
  const id = (work as Partial<ExpiryJob> | undefined)?.expire
  return typeof id === 'string' ? id : undefined
}

/** The checkout module's due work: a checkout's expiry (a paid or cancelled one stays as it is). */
export async function expireDue(work: unknown, ctx: SandboxContext): Promise<void> {
  const id = expiringCheckout(work)
  const checkout = id === undefined ? undefined : await checkoutState(ctx).checkouts.get(id)
  if (checkout) await refreshExpiry(ctx, checkout)
}

const initiateCheckout: Handler<Ops['initiateCheckout']> = async (req, ctx) => {
  const checkout = await createCheckout(ctx, req.body as CheckoutBody)
  return {checkoutId: checkout.id, redirectUrl: hostedPageUrl(ctx, checkout.id)}
}

const getCheckout: Handler<Ops['getCheckout']> = async (req, ctx) => copy(await findCheckout(ctx, req.params.checkoutId))

const voidCheckout: Handler<Ops['voidCheckout']> = async (req, ctx) => {
  const checkout = await findCheckout(ctx, req.params.checkoutId)
  try {
    checkVoid(checkout, ctx.clock.now())
  } catch (error) {
    if (error instanceof RuleViolation) throw refuse(error)
    throw error
  }

  checkout.paymentStatus = 'VOIDED'
  checkout.updatedAt = iso(ctx)
  await saveCheckout(ctx, checkout)
  return {checkoutId: checkout.id, voidStatus: 'SUCCESS'}
}

// ---------------------------------------------------------------------------------------------
// Refunds
// ---------------------------------------------------------------------------------------------

async function refundsOf(ctx: SandboxContext, checkoutId: string): Promise<StoredRefund[]> {
  return await checkoutState(ctx).refunds.get(checkoutId) ?? []
}

const refundCheckout: Handler<Ops['refundCheckout']> = async (req, ctx) => {
  const checkout = await findCheckout(ctx, req.params.checkoutId)
  const body = req.body as {reason: string; amount: {value: string; currency: string}}
  const refunds = await refundsOf(ctx, checkout.id)
  let amount: Cents
  try {
    amount = checkRefund(
      checkout,
      refunds,
      {amount: parseAmount(body.amount.value), currency: body.amount.currency},
      ctx.clock.now(),
    ).amount
  } catch (error) {
    if (error instanceof RuleViolation) throw refuse(error)
    throw error
  }

  const outcomes = await checkoutState(ctx).refundOutcomes.get()
  const next = outcomes.shift()
  // none queued (the common case): nothing to save
  if (next !== undefined) await checkoutState(ctx).refundOutcomes.set(outcomes)
  const status = next ?? 'SUCCESS'
  const refund: StoredRefund = {
    id: ctx.id('rfd'),
    checkout: checkout.id,
    reason: body.reason,
    amount: {value: formatCents(amount), currency: body.amount.currency},
    status,
    createdAt: iso(ctx),
  }
  refunds.push(refund)
  await checkoutState(ctx).refunds.set(checkout.id, refunds)
  if (status === 'SUCCESS') {
    const refunded = refundedCents(checkout, refunds)
    checkout.refundedAmount = formatCents(refunded)
    if (refunded >= parseAmount(checkout.totalAmount.value)) checkout.paymentStatus = 'REFUNDED'
    checkout.updatedAt = refund.createdAt
    await saveCheckout(ctx, checkout)
  }

  return {refundId: refund.id, status: refund.status}
}

const listRefunds: Handler<Ops['listRefunds']> = async (req, ctx) => {
  const checkout = await findCheckout(ctx, req.params.checkoutId)
  return copy(await refundsOf(ctx, checkout.id))
}

const getRefund: Handler<Ops['getRefund']> = async (req, ctx) => {
  const checkout = await findCheckout(ctx, req.params.checkoutId)
  const refund = (await refundsOf(ctx, checkout.id)).find((r) => r.id === req.params.refundId)
  if (!refund) throw new SandboxError(404, CODES.notFound, `Refund ${req.params.refundId} of checkout ${checkout.id} not found`)
  return copy(refund)
}

// ---------------------------------------------------------------------------------------------
// Webhooks: one per event name
// ---------------------------------------------------------------------------------------------

async function findWebhook(ctx: SandboxContext, webhookId: string): Promise<StoredWebhook> {
  const webhook = await checkoutState(ctx).webhooks.get(webhookId)
  if (!webhook) throw new SandboxError(404, CODES.webhookNotFound, `Webhook ${webhookId} not found`)
  return webhook
}

async function assertNameFree(ctx: SandboxContext, name: string, exceptId?: string): Promise<void> {
  const taken = [...await checkoutState(ctx).webhooks.values()].find((w) => w.name === name && w.id !== exceptId)
  if (taken) {
    throw new SandboxError(400, CODES.webhookExists, `A webhook for ${name} already exists (${taken.id}); update or delete it instead`)
  }
}

/** A callback URL the sandbox will not call (link-local, metadata; private on a --public sandbox) is refused when it is registered. */
function assertCallbackAllowed(ctx: SandboxContext, url: string): void {
  const refusal = ctx.callbackRefusal(url)
  if (refusal) throw new SandboxError(400, 'PY0001', `Invalid callbackUrl: ${refusal}`, [{field: 'callbackUrl', description: refusal}])
}

const registerWebhook: Handler<Ops['registerWebhook']> = async (req, ctx) => {
  const body = req.body as {name: string; callbackUrl: string}
  assertCallbackAllowed(ctx, body.callbackUrl)
  await assertNameFree(ctx, body.name)
  const now = iso(ctx)
  const webhook: StoredWebhook = {id: ctx.id('wh'), name: body.name, callbackUrl: body.callbackUrl, createdAt: now, updatedAt: now}
  await checkoutState(ctx).webhooks.set(webhook.id, webhook)
  return copy(webhook)
}

const listWebhooks: Handler<Ops['listWebhooks']> = async (_req, ctx) =>
  [...await checkoutState(ctx).webhooks.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((w) => copy(w))

const updateWebhook: Handler<Ops['updateWebhook']> = async (req, ctx) => {
  const webhook = await findWebhook(ctx, req.params.webhookId)
  const body = req.body as {name: string; callbackUrl: string}
  assertCallbackAllowed(ctx, body.callbackUrl)
  await assertNameFree(ctx, body.name, webhook.id)
  webhook.name = body.name
  webhook.callbackUrl = body.callbackUrl
  webhook.updatedAt = iso(ctx)
  await checkoutState(ctx).webhooks.set(webhook.id, webhook)
  return copy(webhook)
}

const deleteWebhook: Handler<Ops['deleteWebhook']> = async (req, ctx) => {
  const webhook = await findWebhook(ctx, req.params.webhookId)
  await checkoutState(ctx).webhooks.delete(webhook.id)
  return {id: webhook.id}
}

/** The callback URL registered for an event, if any (for webhook delivery). */
export async function webhookFor(ctx: SandboxContext, name: string): Promise<StoredWebhook | undefined> {
  return [...await checkoutState(ctx).webhooks.values()].find((w) => w.name === name)
}

// ---------------------------------------------------------------------------------------------
// Customization
// ---------------------------------------------------------------------------------------------

const setCustomization: Handler<Ops['setCustomization']> = async (req, ctx) => {
  const b = req.body as Record<string, string>
  const customization = {
    logoUrl: b.logoUrl,
    iconUrl: b.iconUrl,
    appleTouchIconUrl: b.appleTouchIconUrl,
    customTitle: b.customTitle,
    colorScheme: b.colorScheme,
  }
  await checkoutState(ctx).customization.set(customization)
  return copy(customization)
}

const getCustomization: Handler<Ops['getCustomization']> = async (_req, ctx) => {
  const customization = await checkoutState(ctx).customization.get()
  if (!customization) throw new SandboxError(404, CODES.noCustomization, 'No customization is set')
  return copy(customization)
}

const removeCustomization: Handler<Ops['removeCustomization']> = async (_req, ctx) => {
  const {customization} = checkoutState(ctx)
  if (!await customization.get()) throw new SandboxError(404, CODES.noCustomization, 'No customization is set')
  await customization.set(null)
  return {message: 'Customization removed'}
}

export const checkoutHandlers: HandlersFor<typeof checkoutService> = {
  initiateCheckout,
  getCheckout,
  voidCheckout,
  refundCheckout,
  listRefunds,
  getRefund,
  registerWebhook,
  listWebhooks,
  updateWebhook,
  deleteWebhook,
  setCustomization,
  getCustomization,
  removeCustomization,
}
