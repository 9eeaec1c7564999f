/**
 * How the money commands' confirmations say what a change uses up. The facts come from the rules
 * (src/services/checkout/rules.ts: one refund per checkout); the words are the CLI's.
 */
import type {ChangeWords} from '../../services/change.js'
import type {RefundToConfirm} from '../../services/checkout/refund.js'

import {formatCents} from '../../services/checkout/money.js'

/**
 * "Refund 10.00 PHP of checkout X? This is its only refund: the other 60.00 PHP can never be
 * refunded." A complete refund says it refunds the whole payment. Under --dry-run nothing was
 * read, so only the amount is said.
 */
export function refundConfirmation({checkoutId, currency, plan, value}: RefundToConfirm): ChangeWords {
  const action = `Refund ${value} ${currency} of checkout ${checkoutId}`
  if (!plan) return {action, resourceId: checkoutId}
  const detail =
    plan.unrefundable > 0n
      ? `This is its only refund: the other ${formatCents(plan.unrefundable)} ${currency} can never be refunded.`
      : `This is its only refund: the whole payment of ${formatCents(plan.paid)} ${currency}.`
  return {action, detail, resourceId: checkoutId}
}

/** The same fact after the refund, for people (stderr): only when something stays unrefundable. */
export function refundUsedUp(result: {checkoutId: string; currency: string; unrefundable?: string}): string | undefined {
  if (!result.unrefundable || result.unrefundable === '0.00') return undefined
  return `Checkout ${result.checkoutId} takes no other refund: ${result.unrefundable} ${result.currency} can no longer be refunded.`
}
