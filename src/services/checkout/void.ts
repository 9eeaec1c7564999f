/**
 * A void, as the money path's steps need it (./money-change.ts): read the checkout, the void
 * rules (./rules.ts), the DELETE, and the read-back of the checkout after a lost answer.
 */
import type {NextStep} from '../../errors.js'
import type {ServiceClient} from '../../http/client.js'
import type {ResultOf} from '../../http/operation.js'

import {type MoneyChange, type MoneySteps, readCheckout, runMoneyChange} from './money-change.js'
import {emptyReason, type LostAnswer, LostAnswerError, lostAnswerWords} from './money-errors.js'
import {checkoutOps, type CheckoutRecord} from './operations.js'
import {voidSeen} from './reconcile.js'
import {checkVoid, formatPhTime, type VoidWindow} from './rules.js'

export interface VoidOutcome {
  checkoutId: string
  voidStatus: string
  amount?: string
  currency?: string
  requestId?: string
  /** The checkout as read before the void (undefined in a dry run). */
  before?: CheckoutRecord
  window?: {closesAt: string}
  /** Set when the answer was lost and a read showed the void happened. */
  reconciled?: true
}

interface Checked {
  before: CheckoutRecord
  window?: VoidWindow
}

const paidOf = (checkout?: CheckoutRecord) =>
  checkout?.totalAmount ? {currency: checkout.totalAmount.currency, value: String(checkout.totalAmount.value)} : undefined

/** The void of one checkout, as the steps need it. */
export function voidChange(checkoutId: string, reason: string): MoneyChange<Checked, ResultOf<typeof checkoutOps.voidCheckout>, VoidOutcome> {
  let read: CheckoutRecord | undefined
  const outcomeOf = (checked: Checked | undefined, paid: CheckoutRecord | undefined, fields: Partial<VoidOutcome>): VoidOutcome => {
    const amount = paidOf(paid)
    return {
      checkoutId,
      voidStatus: 'SUCCESS',
      ...(amount ? {amount: amount.value, currency: amount.currency} : {}),
      ...fields,
      before: checked?.before,
      ...(checked?.window ? {window: {closesAt: formatPhTime(checked.window.lastVoidSecond)}} : {}),
    }
  }

  return {
    checkoutId,
    noun: 'void',
    operation: checkoutOps.voidCheckout,
    answered: (res, _request, checked) =>
      outcomeOf(checked, checked?.before, {checkoutId: res.data.checkoutId ?? checkoutId, requestId: res.requestId, voidStatus: res.data.voidStatus}),
    async check(client, reads) {
      const {checkout, now} = await reads(`checkout ${checkoutId}`, () => readCheckout(client, checkoutId))
      read = checkout
      return {before: checkout, window: checkVoid(checkout, now)}
    },
    async readBack(client, _request, checked) {
      const res = await client.call(checkoutOps.getCheckout, {params: {checkoutId}})
      const seen = voidSeen(res.data)
      return {
        found: `read checkout: paymentStatus ${res.data.paymentStatus ?? 'not shown'}`,
        outcome: seen === 'applied' ? outcomeOf(checked, checked?.before ?? res.data, {reconciled: true}) : undefined,
        readRequestId: res.requestId,
        seen,
        shown: res.data.paymentStatus,
      }
    },
    request(checked) {
      const amount = paidOf(checked?.before)
      const shown = amount ? ` (${`${amount.value} ${amount.currency ?? ''}`.trim()})` : ''
      return {amount, body: {reason}, checkoutId, reason, words: {action: `Void checkout ${checkoutId}${shown}`, resourceId: checkoutId}}
    },
    send: (client, request) => client.call(checkoutOps.voidCheckout, {body: {reason: request.body.reason}, params: {checkoutId}}),
    unsent: () => ({amount: paidOf(read), body: {reason}}),
    unsettled: (lost, _request, how) => voidUnsettled(lost, checkoutId, reason, how),
  }
}

/**
 * A void the read-back did not settle. Either way running the command again is safe: a void that
 * lands late makes a rerun refuse with "already voided", exit 5; it can never void twice.
 */
function voidUnsettled(lost: LostAnswer, checkoutId: string, reason: string, how: {outcome: 'not applied' | 'unknown'; readFailed?: Error; back?: {shown?: string}}): LostAnswerError {
  const check: NextStep = {step: 'checkout-get', checkoutId}
  const rerun: NextStep = {step: 'void-again', checkoutId, reason}
  const what = lostAnswerWords(lost, 'void')
  if (how.readFailed) {
    return new LostAnswerError(
      `${what}, and reading checkout ${checkoutId} failed too (${how.readFailed.message}). ` +
        'The outcome is unknown: check the payment status before voiding again',
      'unknown',
      lost,
      [check],
    )
  }

  const status = how.back?.shown
  if (how.outcome === 'unknown') {
    return new LostAnswerError(
      `${what}. The outcome is unknown: the service may still be working on it ` +
        `(checkout ${checkoutId} read ${status ?? 'not shown'} just after). Check the payment status before anything else; ` +
        'running the same void again is safe (a void that went through makes it refuse, never void twice)',
      'unknown',
      lost,
      [check, rerun],
    )
  }

  return new LostAnswerError(
    `${what}. Reconciled: the void was not applied ` +
      `(checkout ${checkoutId} is still ${status ?? 'not voided'}). It is safe to run the same command again: ` +
      'a void that went through in the meantime makes it refuse (already voided), never void twice',
    'not applied',
    lost,
    [rerun],
  )
}

/**
 * Voids a checkout through the money path's steps: reads it and refuses (exit 5) when it cannot be
 * voided or the void window has closed, asks, then sends the DELETE once. With `check: false`
 * (dry runs) nothing is read.
 */
export async function voidCheckoutChecked(
  deps: MoneySteps & {client: ServiceClient},
  input: {checkoutId: string; reason: string; check?: boolean},
): Promise<VoidOutcome> {
  const reason = input.reason.trim()
  if (!reason) throw emptyReason()
  return runMoneyChange(deps, voidChange(input.checkoutId, reason), input.check !== false)
}
