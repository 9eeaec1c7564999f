/**
 * The one rule for a lost answer to a void or a refund: what a fresh read says of the request that
 * was sent. Used by the money path (./money-change.ts, ./void.ts, ./refund.ts) and by a bulk run reading back a row an
 * earlier run journalled without an outcome (src/runtime/bulk/send.ts), so the same lost answer is
 * never reported two ways.
 */
import {type Cents, centsOf} from './money.js'
import {type CheckoutRecord, type RefundRecord} from './operations.js'

/** What a read after the lost answer shows: the change was applied, or it was not (nothing moved). */
export type Seen = 'applied' | 'not applied'

/** A void shows as the checkout's payment status VOIDED; anything else is no void (yet). */
export function voidSeen(after: CheckoutRecord): Seen | undefined {
  return after.paymentStatus === 'VOIDED' ? 'applied' : undefined
}

/**
 * The refund that was sent is one not listed before (`known`), of the amount sent, in its
 * currency (a refund without a currency, or a request without one, matches any). One that went
 * through wins over a FAILED one; a FAILED one is "not applied": nothing moved, and a failed
 * refund does not use up the checkout's one refund. Undefined: no such refund (yet).
 */
export function refundSeen(
  after: readonly RefundRecord[],
  sent: {cents: Cents | undefined; currency?: string; known: Iterable<string>},
): {outcome: Seen; refund: RefundRecord} | undefined {
  const known = new Set(sent.known)
  const fresh = after.filter(
    (r) =>
      !known.has(r.id) &&
      centsOf(r.amount?.value) === sent.cents &&
      (!sent.currency || !r.amount?.currency || r.amount.currency === sent.currency),
  )
  const refund = fresh.find((r) => r.status !== 'FAILED') ?? fresh[0]
  return refund && {outcome: refund.status === 'FAILED' ? 'not applied' : 'applied', refund}
}
