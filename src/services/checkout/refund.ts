/**
 * A refund, as the money path's steps need it (./money-change.ts): read the checkout and its
 * refunds, the refund rules (./rules.ts), the POST, and the read-back of the refunds after a lost
 * answer. A refund the service answers FAILED is a refusal (exit 5): nothing moved, and it does
 * not use up the one refund.
 */
import type {NextStep} from '../../errors.js'
import type {ServiceClient} from '../../http/client.js'
import type {ResultOf} from '../../http/operation.js'

import {InputError} from '../../errors.js'
import {type MoneyChange, type MoneyRequest, type MoneySteps, readCheckout, runMoneyChange} from './money-change.js'
import {emptyReason, type LostAnswer, LostAnswerError, lostAnswerWords, refundFailed} from './money-errors.js'
import {type Cents, centsOf, formatCents} from './money.js'
import {checkoutOps, type CheckoutRecord, type RefundRecord} from './operations.js'
import {refundSeen} from './reconcile.js'
import {checkRefund, type RefundPlan} from './rules.js'

export interface RefundOutcome {
  checkoutId: string
  refundId: string
  status: string
  amount: string
  currency: string
  kind?: RefundPlan['kind']
  /** What can never be refunded after this refund (the checkout takes one), two decimals; unknown in a dry run. */
  unrefundable?: string
  reason: string
  requestId?: string
  /** What was read before sending (undefined in a dry run). */
  before?: {checkout: CheckoutRecord; refunds: RefundRecord[]}
  /** Set when the answer was lost and a read showed the refund happened. */
  reconciled?: true
}

/** The facts a refund's confirmation prompt words (the CLI words them: src/cli). */
export interface RefundToConfirm {
  checkoutId: string
  value: string
  currency: string
  /** Undefined in a dry run (nothing was read). */
  plan?: RefundPlan
}

interface Checked {
  before: NonNullable<RefundOutcome['before']>
  plan: RefundPlan
}

interface RefundInput {
  checkoutId: string
  reason: string
  amount?: Cents
  currency?: string
  /** The prompt's words for this refund; by default the row's ("Refund checkout <id>"). */
  confirm?: (refund: RefundToConfirm) => {action: string; detail?: string; resourceId?: string} | undefined
}

/** The refund of one checkout (`amount` undefined: what is left), as the steps need it. */
export function refundChange(input: RefundInput): MoneyChange<Checked, ResultOf<typeof checkoutOps.refundCheckout>, RefundOutcome> {
  const {checkoutId, reason} = input
  let read: CheckoutRecord | undefined
  const sent = (checked: Checked | undefined) => {
    const value = formatCents(checked?.plan.amount ?? input.amount!)
    return {currency: checked?.plan.currency || input.currency || 'PHP', value}
  }

  const outcomeOf = (checked: Checked | undefined, fields: Pick<RefundOutcome, 'refundId' | 'status'> & Partial<RefundOutcome>): RefundOutcome => ({
    checkoutId,
    ...sent(checked),
    amount: sent(checked).value,
    ...(checked ? {kind: checked.plan.kind, unrefundable: formatCents(checked.plan.unrefundable)} : {}),
    reason,
    before: checked?.before,
    ...fields,
  })
  return {
    checkoutId,
    noun: 'refund',
    operation: checkoutOps.refundCheckout,
    answered(res, request, checked) {
      const outcome = outcomeOf(checked, {refundId: res.data.refundId, requestId: res.requestId, status: res.data.status})
      if (outcome.status === 'FAILED') throw refundFailed(checkoutId, outcome.refundId, outcome.amount, outcome.currency)
      return outcome
    },
    async check(client, reads) {
      const {checkout, now} = await reads(`checkout ${checkoutId}`, () => readCheckout(client, checkoutId))
      const refunds = await reads(`the refunds of checkout ${checkoutId}`, async () => (await client.call(checkoutOps.listRefunds, {params: {checkoutId}})).data)
      read = checkout
      const before = {checkout, refunds}
      return {before, plan: checkRefund(checkout, refunds, {amount: input.amount, currency: input.currency}, now)}
    },
    async readBack(client, request, checked, lost) {
      const {currency, value} = request.body.amount!
      const {known} = request
      // Nothing was read before sending, so a new refund cannot be told from an old one.
      if (!known) throw refundUnsettled(lost!, request, {outcome: 'unknown'})
      const res = await client.call(checkoutOps.listRefunds, {params: {checkoutId}})
      const seen = refundSeen(res.data, {cents: centsOf(value), currency, known})
      const found = seen?.refund
      return {
        ...(found ? {data: {refundId: found.id, status: found.status}} : {}),
        ...(found?.status === 'FAILED' ? {failure: refundFailed(checkoutId, found.id, value, currency)} : {}),
        found: found ? `read refunds: new refund ${found.id} (${found.status ?? 'status not shown'})` : `read refunds: no new refund of ${value} ${currency}`,
        outcome: found ? outcomeOf(checked, {amount: value, currency, reconciled: true, refundId: found.id, status: found.status ?? 'SUCCESS'}) : undefined,
        readRequestId: res.requestId,
        seen: seen?.outcome,
      }
    },
    request(checked) {
      const {currency, value} = sent(checked)
      const words = input.confirm?.({checkoutId, currency, plan: checked?.plan, value})
      return {body: {amount: {currency, value}, reason}, checkoutId, reason, known: checked?.before.refunds.map((r) => r.id), words}
    },
    send: (client, request) => client.call(checkoutOps.refundCheckout, {body: {amount: request.body.amount!, reason}, params: {checkoutId}}),
    unsent() {
      const currency = input.currency ?? read?.totalAmount?.currency
      return {amount: input.amount === undefined ? undefined : {currency, value: formatCents(input.amount)}, body: {reason}}
    },
    unsettled: refundUnsettled,
  }
}

/**
 * A refund the read-back did not settle. Either way running the command again is safe: one refund
 * per checkout, so a refund that lands late makes a rerun refuse, exit 5; it can never refund twice.
 */
function refundUnsettled(lost: LostAnswer, request: MoneyRequest, how: {outcome: 'not applied' | 'unknown'; readFailed?: Error}): LostAnswerError {
  const {checkoutId, reason} = request
  const {currency, value} = request.body.amount!
  const check: NextStep = {step: 'refund-list', checkoutId}
  const rerun: NextStep = {step: 'refund-again', amount: value, checkoutId, currency, reason}
  const what = lostAnswerWords(lost, 'refund')
  if (!request.known) return new LostAnswerError(`${what}; the outcome is unknown: check before trying again`, 'unknown', lost, [check])
  if (how.readFailed) {
    return new LostAnswerError(
      `${what}, and reading the refunds of checkout ${checkoutId} failed too ` +
        `(${how.readFailed.message}). The outcome is unknown: check before refunding again`,
      'unknown',
      lost,
      [check],
    )
  }

  if (how.outcome === 'unknown') {
    return new LostAnswerError(
      `${what}. The outcome is unknown: the service may still be working on it ` +
        `(checkout ${checkoutId} listed no new refund of ${value} ${currency} just after). Check its refunds before anything else; ` +
        'running the same refund again is safe (a checkout takes one refund, so it would refuse, never refund twice)',
      'unknown',
      lost,
      [check, rerun],
    )
  }

  return new LostAnswerError(
    `${what}. Reconciled: the refund was not applied ` +
      `(checkout ${checkoutId} has no new refund of ${value} ${currency}). It is safe to run the same command again: ` +
      'a checkout takes one refund, so a refund that went through in the meantime makes it refuse, never refund twice',
    'not applied',
    lost,
    [rerun],
  )
}

/**
 * Refunds a checkout through the money path's steps: reads it and its refunds, refuses (exit 5) a
 * second refund, a refund before the void window closed, or an amount over what is left; `amount`
 * undefined refunds what is left. Then asks, and sends the POST once.
 */
export async function refundCheckoutChecked(deps: MoneySteps & {client: ServiceClient}, input: RefundInput & {check?: boolean}): Promise<RefundOutcome> {
  const reason = input.reason.trim()
  if (!reason) throw emptyReason()
  if (input.check === false && input.amount === undefined) {
    throw new InputError(['amount'], (name) => ({
      message: `${name('full')} needs to read the checkout; with ${name('dryRun')} pass ${name('amount')} instead`,
    }))
  }

  return runMoneyChange(deps, refundChange({...input, reason}), input.check !== false)
}
