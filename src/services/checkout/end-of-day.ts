/**
 * A merchant's end of day (`checkout reconcile`): what the shop believes of each order held against
 * what the checkout service says, one verdict a row, and totals per currency for each side. Not to
 * be confused with ./reconcile.ts (the read-back of one lost void or refund answer).
 *
 * The shop's row: `state` is `paid`, `voided`, `refunded` or `unpaid`; `amount` is always the
 * order's amount as charged (the checkout's total), in every state; `refunded` is what the shop
 * refunded of it (only with state `refunded`; empty there means the whole amount).
 *
 * Money is cents in a bigint (./money.ts); nothing here reads a clock but the service's own (`now`,
 * from its Date header), so an expired checkout is expired on the service's clock.
 */
import type {CheckoutRecord, RefundRecord} from './operations.js'

import {ExitCode, OpsError} from '../../errors.js'
import {type Cents, centsOf, formatCents, MoneyError, parsePositiveAmount} from './money.js'
import {isExpired, refundedCents} from './rules.js'

export const SHOP_STATES = ['paid', 'voided', 'refunded', 'unpaid'] as const
export type ShopState = (typeof SHOP_STATES)[number]
export const SHOP_COLUMNS = ['checkoutId', 'amount', 'currency', 'state', 'reference', 'refunded'] as const
export const VERDICTS = ['match', 'state-differs', 'amount-differs', 'unknown', 'error', 'not-in-file'] as const
export type Verdict = (typeof VERDICTS)[number]

export interface ShopRow {
  line: number
  checkoutId: string
  reference?: string
  state: ShopState
  amount: Cents
  currency: string
  refunded: Cents
}

/** What the service says of one checkout, on its own clock. */
export interface ServiceView {
  /** paid, declined, expired, voided, refunded, pending, cancelled (or the service's own word). */
  state: string
  currency: string
  total: Cents
  paid: Cents
  voided: Cents
  refunded: Cents
  /** When the service last changed it (its clock), when it says. */
  stateAt?: string
}

/** Money of one side: what moved, and what stayed (paid - voided - refunded). */
export interface Money {
  paid: Cents
  voided: Cents
  refunded: Cents
}

const CURRENCY = /^[A-Z]{3}$/

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined)

/**
 * One row of the shop's file checked: its fields named as the file names them (`amount`, `state`),
 * or why it cannot be one.
 */
export function shopRow(line: number, fields: Record<string, unknown>, idProblem: (id: string) => string | undefined): {problem: string} | {row: ShopRow} {
  const checkoutId = text(fields.checkoutId)
  if (!checkoutId) return {problem: 'checkoutId: missing'}
  const idWrong = idProblem(checkoutId)
  if (idWrong) return {problem: `checkoutId: ${idWrong}`}
  const state = text(fields.state)?.toLowerCase()
  if (!state) return {problem: `state: missing (one of ${SHOP_STATES.join(', ')})`}
  if (!(SHOP_STATES as readonly string[]).includes(state)) return {problem: `state: ${JSON.stringify(state.slice(0, 20))} is not one of ${SHOP_STATES.join(', ')}`}
  const currency = text(fields.currency)?.toUpperCase()
  if (!currency || !CURRENCY.test(currency)) return {problem: 'currency: expected a three-letter code such as PHP'}
  let amount: Cents
  let refunded: Cents = 0n
  try {
    amount = parsePositiveAmount(text(fields.amount) ?? '', 'amount')
    const refundedText = text(fields.refunded) ?? ''
    if (refundedText !== '') {
      if (state !== 'refunded') return {problem: `refunded: given for an order whose state is ${state} (only a refunded order has a refunded amount)`}
      refunded = parsePositiveAmount(refundedText, 'refunded')
      if (refunded > amount) return {problem: `refunded: ${formatCents(refunded)} is more than the amount ${formatCents(amount)}`}
    } else if (state === 'refunded') refunded = amount
  } catch (error) {
    if (error instanceof MoneyError) return {problem: error.message}
    throw error
  }

  const reference = text(fields.reference)
  return {row: {amount, checkoutId, currency, line, refunded, state: state as ShopState, ...(reference ? {reference} : {})}}
}

/** The shop's money for its row. */
export function shopMoney(row: ShopRow): Money {
  const paid = row.state === 'unpaid' ? 0n : row.amount
  return {paid, refunded: row.refunded, voided: row.state === 'voided' ? row.amount : 0n}
}

/**
 * An answer the end of day cannot read though it has the row's shape (a record without its amount:
 * the schemas leave totalAmount and a refund's amount optional): exit 6, never a default.
 */
export class UnreadableAnswer extends OpsError {
  constructor(problem: string) {
    super(`the service's answer cannot be read: ${problem}`, ExitCode.Server)
  }
}

/**
 * What the service says of a checkout, from its record, its refunds and its clock (`now`). Throws
 * UnreadableAnswer when the answer lacks what a verdict needs.
 */
export function serviceView(record: CheckoutRecord, refunds: readonly RefundRecord[], now: Date): ServiceView {
  const total = centsOf(record.totalAmount?.value)
  const currency = record.totalAmount?.currency
  if (total === undefined || typeof currency !== 'string') throw new UnreadableAnswer('the checkout answer has no readable totalAmount')
  for (const refund of refunds) {
    if (centsOf(refund.amount?.value) === undefined) throw new UnreadableAnswer('a refund in the answer has no readable amount')
  }

  const payment = record.paymentStatus ?? ''
  const refunded = refundedCents(record, refunds)
  const paid = payment === 'PAYMENT_SUCCESS' || payment === 'REFUNDED' || payment === 'VOIDED' ? total : 0n
  let state: string
  if (payment === 'VOIDED') state = 'voided'
  else if (payment === 'REFUNDED' || (payment === 'PAYMENT_SUCCESS' && refunded > 0n)) state = 'refunded'
  else if (payment === 'PAYMENT_SUCCESS') state = 'paid'
  else if (payment === 'PAYMENT_FAILED') state = 'declined'
  else if (payment === 'PAYMENT_EXPIRED' || record.status === 'EXPIRED' || isExpired(record, now)) state = 'expired'
  else if (payment === 'PAYMENT_CANCELLED') state = 'cancelled'
  else if (payment === 'PENDING_PAYMENT' || record.status === 'CREATED' || record.status === 'PROCESSING') state = 'pending'
  else state = (payment || record.status || 'unknown').toLowerCase()
  const stateAt = state === 'paid' ? (record.paymentDetails?.paymentAt ?? record.updatedAt) : record.updatedAt
  return {
    currency,
    paid,
    refunded: payment === 'REFUNDED' && refunded === 0n ? total : refunded,
    state,
    total,
    voided: payment === 'VOIDED' ? total : 0n,
    ...(stateAt ? {stateAt} : {}),
  }
}

/** The shop's word for the service's state: anything not paid, voided or refunded is unpaid. */
function asShopState(state: string): ShopState {
  return state === 'paid' || state === 'voided' || state === 'refunded' ? state : 'unpaid'
}

/** One row's verdict: the state first, then the money (the amount, its currency, what was refunded). */
export function verdictOf(shop: ShopRow, service: ServiceView): 'amount-differs' | 'match' | 'state-differs' {
  if (asShopState(service.state) !== shop.state) return 'state-differs'
  if (service.currency !== shop.currency || service.total !== shop.amount || service.refunded !== shop.refunded) return 'amount-differs'
  return 'match'
}

/** Totals per currency for one side, added row by row. */
export class Totals {
  private readonly byCurrency = new Map<string, Money & {rows: number}>()

  add(currency: string, money: Money): void {
    const sum = this.byCurrency.get(currency) ?? {paid: 0n, refunded: 0n, rows: 0, voided: 0n}
    sum.paid += money.paid
    sum.voided += money.voided
    sum.refunded += money.refunded
    sum.rows++
    this.byCurrency.set(currency, sum)
  }

  /** Each currency, sorted, with the net (paid - voided - refunded). */
  list(): {currency: string; net: Cents; paid: Cents; refunded: Cents; rows: number; voided: Cents}[] {
    return [...this.byCurrency.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, m]) => ({currency, net: m.paid - m.voided - m.refunded, paid: m.paid, refunded: m.refunded, rows: m.rows, voided: m.voided}))
  }
}

