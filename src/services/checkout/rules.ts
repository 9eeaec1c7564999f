import {CODES} from './codes.js'
/**
 * The business rules of the checkout service, in ONE place. The CLI uses them to refuse early
 * (exit 5, nothing sent, and a message that says which action applies now); the sandbox uses
 * the very same functions to enforce them. Spec section 3 and 8:
 *
 * 1. A void applies to a successful payment and is allowed until 23:59:59 PH Standard Time
 *    (UTC+8) of the transaction date.
 * 2. From 00:00:00 UTC+8 of the following day only a refund is possible.
 * 3. One complete refund or one partial refund; the total refunded never exceeds the payment.
 * 4. A FAILED refund attempt is kept in the list with status FAILED and does not use up the one
 *    refund.
 *
 * Every function takes `now` from its caller: the sandbox passes its controllable clock, the CLI
 * the service's own time (its `Date` header), never a hidden `Date.now()`.
 */
import {type Cents, centsOf, formatCents} from './money.js'

/** PH Standard Time is UTC+8 all year (no daylight saving). */
export const PH_OFFSET_MS = 8 * 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000
/** A checkout not paid within an hour of its creation expires (a dropout). */
export const CHECKOUT_TTL_MS = 60 * 60 * 1000


/**
 * What is still possible, in the service's words ("only a refund is possible now"). The CLI names
 * its own command from the violation's code (src/cli/hints.ts).
 */
export interface StillPossible {
  text: string
}

/** A rule says no. `status` is the HTTP status the service answers with. */
export class RuleViolation extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly next?: StillPossible,
  ) {
    super(message)
    this.name = 'RuleViolation'
  }

  /** The service's message: "void window closed at ...; only a refund is possible now". */
  get serviceMessage(): string {
    return this.next ? `${this.message}; ${this.next.text}` : this.message
  }
}

// ---------------------------------------------------------------------------------------------
// Time in UTC+8
// ---------------------------------------------------------------------------------------------

const pad = (n: number) => String(n).padStart(2, '0')

/** `2026-11-21 23:59:59 +08:00`: the instant as a wall-clock time in PH Standard Time. */
export function formatPhTime(at: Date): string {
  const d = new Date(at.getTime() + PH_OFFSET_MS)
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +08:00`
  )
}

/** Start (00:00:00 UTC+8) of the PH calendar day that contains `at`. */
export function startOfPhDay(at: Date): Date {
  const local = at.getTime() + PH_OFFSET_MS
  return new Date(local - (((local % DAY_MS) + DAY_MS) % DAY_MS) - PH_OFFSET_MS)
}

export interface VoidWindow {
  /** When the payment was made. */
  transactionAt: Date
  /** 23:59:59 UTC+8 of the transaction date: the last second a void is accepted. */
  lastVoidSecond: Date
  /** 00:00:00 UTC+8 of the next day: from here on, only a refund. */
  refundsFrom: Date
}

export function voidWindow(transactionAt: Date): VoidWindow {
  const refundsFrom = new Date(startOfPhDay(transactionAt).getTime() + DAY_MS)
  return {transactionAt, lastVoidSecond: new Date(refundsFrom.getTime() - 1000), refundsFrom}
}

// ---------------------------------------------------------------------------------------------
// Facts the rules read (a checkout record and its refunds, as the service shows them)
// ---------------------------------------------------------------------------------------------

export interface CheckoutFacts {
  id: string
  status?: string
  paymentStatus?: string
  totalAmount?: {value: unknown; currency?: string}
  refundedAmount?: unknown
  createdAt?: string
  updatedAt?: string
  expiredAt?: string
  paymentDetails?: {paymentAt?: string}
}

export interface RefundFacts {
  id: string
  status?: string
  amount?: {value: unknown; currency?: string}
}

function parseTime(text: string | undefined): Date | undefined {
  if (!text) return undefined
  const d = new Date(text)
  return Number.isNaN(d.getTime()) ? undefined : d
}

/**
 * When the transaction happened: `paymentDetails.paymentAt`, else the `updatedAt` of a checkout
 * whose payment succeeded (nothing changes a successful checkout before a void or refund).
 */
export function transactionTime(checkout: CheckoutFacts): Date | undefined {
  return (
    parseTime(checkout.paymentDetails?.paymentAt) ??
    (checkout.paymentStatus === 'PAYMENT_SUCCESS' ? parseTime(checkout.updatedAt) : undefined)
  )
}

/** The amount paid, in cents; undefined if the record does not say. */
export function paidCents(checkout: CheckoutFacts): Cents | undefined {
  return centsOf(checkout.totalAmount?.value)
}

/** Refunds that count: every refund that did not fail (an unknown status counts, to be safe with money). */
export function countingRefunds<R extends RefundFacts>(refunds: readonly R[]): R[] {
  return refunds.filter((r) => r.status !== 'FAILED')
}

/** What was refunded so far: the larger of the counting refunds' sum and the record's refundedAmount. */
export function refundedCents(checkout: CheckoutFacts, refunds: readonly RefundFacts[]): Cents {
  let listed = 0n
  for (const r of countingRefunds(refunds)) listed += centsOf(r.amount?.value) ?? 0n
  const raw = checkout.refundedAmount
  const recorded = centsOf(raw && typeof raw === 'object' ? (raw as {value?: unknown}).value : raw) ?? 0n
  return listed > recorded ? listed : recorded
}

/** A checkout still waiting for its buyer after its hour is over (evaluated lazily on read). */
export function isExpired(checkout: CheckoutFacts, now: Date): boolean {
  if (checkout.status !== 'CREATED' && checkout.status !== 'PROCESSING') return false
  const createdAt = parseTime(checkout.createdAt)
  const expiredAt = parseTime(checkout.expiredAt) ?? (createdAt ? new Date(createdAt.getTime() + CHECKOUT_TTL_MS) : undefined)
  return expiredAt !== undefined && now.getTime() >= expiredAt.getTime()
}

const money = (cents: Cents, currency?: string) => `${formatCents(cents)}${currency ? ` ${currency}` : ''}`

/** Only a successful payment can be voided or refunded: any other status refuses (the one check of it). */
function requireSuccessfulPayment({id, paymentStatus}: CheckoutFacts, done: 'refunded' | 'voided'): void {
  if (paymentStatus === 'PAYMENT_SUCCESS') return
  throw new RuleViolation(
    CODES.notVoidable,
    400,
    `checkout ${id} cannot be ${done}: payment status is ${paymentStatus ?? 'unknown'}; only a successful payment can be ${done}`,
  )
}

// ---------------------------------------------------------------------------------------------
// Void
// ---------------------------------------------------------------------------------------------

/**
 * May this checkout be voided now? Returns the void window (undefined when the record does not
 * say when it was paid: then only the service can tell) or throws a RuleViolation.
 */
export function checkVoid(checkout: CheckoutFacts, now: Date): VoidWindow | undefined {
  const {id, paymentStatus} = checkout
  if (paymentStatus === 'VOIDED') throw new RuleViolation(CODES.notVoidable, 400, `checkout ${id} is already voided`)
  if (paymentStatus === 'REFUNDED') throw new RuleViolation(CODES.notVoidable, 400, `checkout ${id} has been refunded and cannot be voided`)
  requireSuccessfulPayment(checkout, 'voided')

  const at = transactionTime(checkout)
  if (!at) return undefined
  const window = voidWindow(at)
  if (now.getTime() >= window.refundsFrom.getTime()) {
    throw new RuleViolation(CODES.voidAfterCutoff, 400, `void window closed at ${formatPhTime(window.lastVoidSecond)}`, {
      text: 'only a refund is possible now',
    })
  }

  return window
}

// ---------------------------------------------------------------------------------------------
// Refund
// ---------------------------------------------------------------------------------------------

export interface RefundPlan {
  /** What this refund moves, in cents. */
  amount: Cents
  currency: string
  /** What the buyer paid. */
  paid: Cents
  /** What was left to refund before this one. */
  remaining: Cents
  /** Complete (everything paid) or partial. */
  kind: 'complete' | 'partial'
  /**
   * What can never be refunded once this refund is made (rule 3: a checkout takes one refund, so
   * a partial refund uses up the rest): what is left minus this refund; 0 for a complete refund.
   */
  unrefundable: Cents
}

/**
 * May this refund go ahead now? `amount` undefined means "what is left". Returns the
 * plan or throws a RuleViolation. A currency other than the checkout's, or an amount of zero, is
 * a RuleViolation with status 400 and the code of an amount problem.
 */
export function checkRefund(
  checkout: CheckoutFacts,
  refunds: readonly RefundFacts[],
  request: {amount?: Cents; currency?: string},
  now: Date,
): RefundPlan {
  const {id, paymentStatus} = checkout
  if (paymentStatus === 'VOIDED') throw new RuleViolation(CODES.notVoidable, 400, `checkout ${id} was voided; there is nothing to refund`)

  const existing = countingRefunds(refunds)
  const paid = paidCents(checkout)
  const refunded = refundedCents(checkout, refunds)
  if (existing.length > 0 || refunded > 0n || paymentStatus === 'REFUNDED') {
    const first = existing[0]
    const what = first
      ? `refund ${first.id} (${first.status ?? 'unknown status'}${first.amount ? `, ${money(centsOf(first.amount.value) ?? 0n, first.amount.currency)}` : ''})`
      : `a refund of ${money(refunded, checkout.totalAmount?.currency)}`
    throw new RuleViolation(
      CODES.refundExists,
      400,
      `checkout ${id} already has ${what}; only one refund (complete or partial) is allowed per checkout`,
    )
  }

  requireSuccessfulPayment(checkout, 'refunded')

  const at = transactionTime(checkout)
  if (at) {
    const window = voidWindow(at)
    if (now.getTime() < window.refundsFrom.getTime()) {
      throw new RuleViolation(
        CODES.refundBeforeCutoff,
        400,
        `refunds open at ${formatPhTime(window.refundsFrom)}; until then the payment can be voided (void window closes at ${formatPhTime(window.lastVoidSecond)})`,
        {text: 'only a void is possible now'},
      )
    }
  }

  if (paid === undefined)
    throw new RuleViolation(CODES.amountOver, 400, `checkout ${id} does not show the amount paid; cannot check the refund`)
  const currency = checkout.totalAmount?.currency ?? request.currency ?? ''
  if (request.currency && checkout.totalAmount?.currency && request.currency !== checkout.totalAmount.currency) {
    throw new RuleViolation(
      CODES.amountOver,
      400,
      `the refund currency ${request.currency} is not the checkout's currency ${checkout.totalAmount.currency}`,
    )
  }

  const remaining = paid - refunded
  const amount = request.amount ?? remaining
  if (amount <= 0n) throw new RuleViolation(CODES.amountOver, 400, `a refund must be more than 0.00`)
  if (amount > remaining) {
    throw new RuleViolation(
      CODES.amountOver,
      400,
      `a refund of ${money(amount, currency)} is more than the ${money(remaining, currency)} that can be refunded on checkout ${id} (paid ${money(paid, currency)})`,
    )
  }

  return {amount, currency, paid, remaining, kind: amount === paid ? 'complete' : 'partial', unrefundable: remaining - amount}
}

/** Error codes of the service (the sandbox answers with them; the CLI recognises them). */
export {CODES} from './codes.js'
