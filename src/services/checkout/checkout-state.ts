/**
 * A checkout's state in one word, as the service reports it (`checkout list`): `paid`, `declined`,
 * `expired`, `voided`, `cancelled`, `pending`, or `refunded <amount>` (a partial refund leaves the
 * payment status PAYMENT_SUCCESS and says what was refunded in refundedAmount).
 */
import type {CheckoutRecord} from './operations.js'

import {centsOf, formatCents} from './money.js'
import {refundedCents} from './rules.js'

const WORDS: Readonly<Record<string, string>> = {
  PAYMENT_SUCCESS: 'paid',
  PAYMENT_FAILED: 'declined',
  PAYMENT_EXPIRED: 'expired',
  PAYMENT_CANCELLED: 'cancelled',
  VOIDED: 'voided',
  PENDING_PAYMENT: 'pending',
}

export interface ServiceState {
  state: string
  /** When the service last changed it (its clock): the payment time of a paid checkout, else updatedAt. */
  stateAt: null | string
  /** The service's creation time (its clock). */
  createdAt: null | string
}

export function serviceState(record: CheckoutRecord): ServiceState {
  const refunded = refundedCents(record, [])
  const payment = record.paymentStatus ?? ''
  let state: string
  if (payment === 'REFUNDED' || (refunded > 0n && payment === 'PAYMENT_SUCCESS')) state = `refunded ${formatCents(refunded > 0n ? refunded : (centsOf(record.totalAmount?.value) ?? 0n))}`
  else state = WORDS[payment] ?? (record.status === 'EXPIRED' ? 'expired' : (payment || record.status || 'unknown').toLowerCase())
  const paidAt = payment === 'PAYMENT_SUCCESS' && refunded === 0n ? record.paymentDetails?.paymentAt : undefined
  return {state, stateAt: paidAt ?? record.updatedAt ?? null, createdAt: record.createdAt ?? null}
}
