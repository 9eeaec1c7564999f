/**
 * What the money commands do, step by step, over the operations table: read the checkout (and
 * its refunds), apply the rules to refuse early, then send once (consent is the client's `beforeSend`, from the row) (void and
 * refund are never retried). Commands stay thin: flags in, one call here, data out.
 *
 * The returned objects carry what was read before sending (`before`), so that when the answer to
 * a void or refund is lost (a timeout or a dropped connection after sending: `NetworkError` with
 * `outcomeUnknown`) a fresh read tells what it can (the rule, shared with bulk: ./reconcile.ts). That reconciliation is reported, never
 * retried, and never claims more than the read shows:
 * - the read shows the change -> applied: the result as usual with `reconciled: true` (exit 0);
 * - the read does not show it, and the server closed the connection -> `LostAnswerError`
 *   "not applied" (exit 7, safe to run again);
 * - the read does not show it, and the CLI gave up waiting (timeout, abort) -> `LostAnswerError`
 *   with the outcome unknown (exit 7): the service may still be working on it;
 * - the read fails too, or answers something that cannot be read -> `LostAnswerError` with the
 *   outcome unknown (exit 7), never "not applied".
 * Every reconciliation adds a line to the audit log (`reconciled: true`) with what it found.
 *
 * The reads before sending decide whether money moves, so they decide only on what they read: a
 * read whose answer cannot be read (a redirect, not JSON, not the row's shape: src/http/answer.ts)
 * refuses the change before anything is sent (`PrecheckUnreadableError`, exit 6, audited
 * `refused locally` with the code `unreadable-answer`).
 */
import type {AttemptRecord, CallOptions, ServiceClient} from '../../http/client.js'
import type {Operation} from '../../http/operation.js'

import {ApiError, ExitCode, InputError, NetworkError, type NextStep, OpsError, RuleError, UsageError} from '../../errors.js'
import {UnreadableAnswerError} from '../../http/answer.js'
import {describeIssues} from '../../http/client.js'
import {serviceNow} from '../service-clock.js'
import {type Cents, centsOf, formatCents} from './money.js'
import {checkoutOps, type CheckoutRecord, type RefundRecord, type WebhookRecord, WebhookRequest} from './operations.js'
import {refundSeen, voidSeen} from './reconcile.js'
import {checkRefund, checkVoid, CODES, formatPhTime, type RefundPlan, RuleViolation, type VoidWindow} from './rules.js'

/** What to do instead of a refused void or refund, by the refusal's code (the service's or ours). */
function insteadOf(code: string | undefined, checkoutId: string): NextStep | undefined {
  switch (code) {
    case CODES.voidAfterCutoff: {
      return {step: 'refund-full', checkoutId}
    }

    case CODES.refundBeforeCutoff: {
      return {step: 'void', checkoutId}
    }

    case CODES.refundExists:
    case CODES.amountOver: {
      return {step: 'refund-list', checkoutId}
    }

    default: {
      return undefined
    }
  }
}

/** A rule refusal: exit 5, its code, and (for a closed or not yet open window) what applies now. */
export function ruleError(violation: RuleViolation, checkoutId: string): RuleError {
  const error = new RuleError(violation.message, [], violation.code)
  const next = violation.next ? insteadOf(violation.code, checkoutId) : undefined
  return next ? error.withNext(next) : error
}

/** A void or refund as its audit line names it, when it is refused before sending. */
interface UnsentAttempt {
  operation: Operation
  checkoutId: string
  body: unknown
  amount?: {currency?: string; value: string}
}

/** The audit line of an attempt refused before anything was sent: by a rule, or on a read that could not be read. */
async function auditRefusal(client: ServiceClient, attempt: UnsentAttempt, refusal: Pick<AttemptRecord, 'code' | 'message' | 'outcome'>): Promise<void> {
  const {amount, body, checkoutId, operation} = attempt
  await client.recordAudit({operation, params: {checkoutId}, body, note: amount ? {amount} : undefined, ...refusal})
}

/**
 * A rule refused the change before anything was sent: the attempt still gets its audit line
 * (`refused by rule`, with the rule's code), then the refusal is thrown (exit 5).
 */
async function refuseByRule(client: ServiceClient, violation: RuleViolation, attempt: UnsentAttempt): Promise<never> {
  await auditRefusal(client, attempt, {outcome: 'refused by rule', code: violation.code, message: violation.serviceMessage})
  throw ruleError(violation, attempt.checkoutId)
}

export {serviceNow} from '../service-clock.js'

/** The audit code, and a bulk row's, of a change refused because a read it depends on could not be read. */
export const UNREADABLE_PRECHECK = 'unreadable-answer'

/** A read a void or refund depends on answered something that cannot be read: nothing was sent (exit 6). */
export class PrecheckUnreadableError extends OpsError {
  readonly code = UNREADABLE_PRECHECK

  constructor(
    message: string,
    override readonly cause: UnreadableAnswerError,
  ) {
    super(message, ExitCode.Server)
  }
}

/** "could not read the refunds of checkout chk_1 (HTTP 302, text/html, a redirect ...); nothing was sent" */
export function unreadablePrecheck(what: string, error: UnreadableAnswerError): string {
  return `could not read ${what} (${error.arrived}, ${error.problem}); nothing was sent`
}

/**
 * A read the change depends on (`what`: "checkout chk_1", "the refunds of checkout chk_1"). An
 * answer that cannot be read is taken as nothing, never as an empty list: the attempt gets its
 * audit line (`refused locally`, code `unreadable-answer`) and nothing is sent.
 */
async function precheck<T>(
  client: ServiceClient,
  what: string,
  attempt: UnsentAttempt,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (!(error instanceof UnreadableAnswerError)) throw error
    const refused = new PrecheckUnreadableError(unreadablePrecheck(what, error), error).withNext({
      step: 'checkout-get',
      checkoutId: attempt.checkoutId,
    })
    await auditRefusal(client, attempt, {outcome: 'refused locally', code: UNREADABLE_PRECHECK, message: refused.message})
    throw refused
  }
}

/** Adds the "what to do instead" to the service's own rule refusals (it keeps status and request id). */
function withNextStep(error: unknown, checkoutId: string): unknown {
  if (!(error instanceof ApiError)) return error
  const next = insteadOf(error.code, checkoutId)
  if (!next) return error
  return new ApiError({
    status: error.status,
    code: error.code,
    message: error.serverMessage,
    fieldErrors: error.fieldErrors,
    requestId: error.requestId,
    service: error.service,
    operationId: error.operationId,
    exitCode: error.exitCode,
    suggestions: [],
  }).withNext(next)
}

/**
 * The answer to a void or refund was lost and it did not happen (`not applied`), or whether it
 * happened could not be read (`unknown`). Exit 7 either way: nothing more is sent.
 */
export class LostAnswerError extends NetworkError {
  constructor(
    message: string,
    readonly reconciled: 'not applied' | 'unknown',
    cause: unknown,
    next: NextStep[],
  ) {
    super(message, cause, reconciled === 'unknown')
    this.withNext(...next)
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), reconciled: this.reconciled}
  }
}

/** True for the one error that calls for a reconciliation: sent, then no answer. */
function answerLost(error: unknown): error is NetworkError {
  return error instanceof NetworkError && error.outcomeUnknown
}

/** The server (or the network in front of it) ended the exchange without an answer. */
const SERVER_CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])

/**
 * Whether a read that does not show the change may be taken as "not applied". Only when the
 * server's side closed the connection: the request's handling ended there, so a checkout that
 * does not show the change right after did not get it. That is not a proof (a proxy may cut a
 * connection its backend still serves), and it does not have to be one: a rerun stays safe, since
 * the service takes one void and one refund per checkout, so a change that landed late makes the
 * rerun refuse (exit 5), never move money twice.
 *
 * When the CLI gave up (its timeout, an abort, anything else), the request may still be queued or
 * running at the service, and the spec names no deadline after which it would be dropped: the
 * sandbox applied a 3 s-late void after a 1 s timeout every time. A read that does not show the
 * change proves nothing then, so the outcome is reported unknown, with the command to check.
 */
function serverClosedConnection(lost: NetworkError): boolean {
  const cause = lost.cause as {code?: string; cause?: {code?: string}} | undefined
  const code = cause?.code ?? cause?.cause?.code
  return code !== undefined && SERVER_CLOSED.has(code)
}

/** What happened to the connection, without the client's generic "may have been applied": the read says which. */
function whatHappened(lost: NetworkError): string {
  return lost.message.replace(/; the request may have been applied$/, '')
}

export async function readCheckout(client: ServiceClient, checkoutId: string): Promise<{checkout: CheckoutRecord; now: Date}> {
  const res = await client.call(checkoutOps.getCheckout, {params: {checkoutId}})
  return {checkout: res.data, now: serviceNow(res.headers)}
}

// ---------------------------------------------------------------------------------------------
// Void
// ---------------------------------------------------------------------------------------------

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

/**
 * The answer to the DELETE was lost: reads the checkout once. VOIDED -> applied. Anything else ->
 * not applied when the server closed the connection, unknown when the CLI gave up waiting (see
 * serverClosedConnection). Either way running the command again is safe: a void that lands late
 * makes a rerun refuse with "already voided", exit 5; it can never void twice.
 */
async function reconcileVoid(
  client: ServiceClient,
  input: {checkoutId: string; reason: string; lost: NetworkError; before?: CheckoutRecord; window?: VoidWindow},
): Promise<VoidOutcome> {
  const {checkoutId, reason, lost, before} = input
  const amount = before?.totalAmount ? {value: String(before.totalAmount.value), currency: before.totalAmount.currency} : undefined
  const check: NextStep = {step: 'checkout-get', checkoutId}
  const rerun: NextStep = {step: 'void-again', checkoutId, reason}
  let after: CheckoutRecord
  let readRequestId: string | undefined
  try {
    const read = await client.call(checkoutOps.getCheckout, {params: {checkoutId}})
    after = read.data
    readRequestId = read.requestId
  } catch (error) {
    throw new LostAnswerError(
      `${whatHappened(lost)} (the answer to the void was lost), and reading checkout ${checkoutId} failed too (${(error as Error).message}). ` +
        'The outcome is unknown: check the payment status before voiding again',
      'unknown',
      lost,
      [check],
    )
  }

  const outcome = voidSeen(after) ?? (serverClosedConnection(lost) ? 'not applied' : 'unknown')
  const status = after.paymentStatus ?? 'not shown'
  await client.recordAudit({
    operation: checkoutOps.voidCheckout,
    params: {checkoutId},
    body: {reason},
    note: amount ? {amount} : undefined,
    outcome,
    reconciled: true,
    message:
      `answer lost (${whatHappened(lost)}); read checkout: paymentStatus ${status}` +
      (outcome === 'unknown' ? '; the void may still be in progress at the service' : '') +
      (readRequestId ? ` (read request id ${readRequestId})` : ''),
  })
  if (outcome === 'unknown') {
    throw new LostAnswerError(
      `${whatHappened(lost)} (the answer to the void was lost). The outcome is unknown: the service may still be working on it ` +
        `(checkout ${checkoutId} read ${status} just after). Check the payment status before anything else; ` +
        'running the same void again is safe (a void that went through makes it refuse, never void twice)',
      'unknown',
      lost,
      [check, rerun],
    )
  }

  if (outcome === 'not applied') {
    throw new LostAnswerError(
      `${whatHappened(lost)} (the answer to the void was lost). Reconciled: the void was not applied ` +
        `(checkout ${checkoutId} is still ${after.paymentStatus ?? 'not voided'}). It is safe to run the same command again: ` +
        'a void that went through in the meantime makes it refuse (already voided), never void twice',
      'not applied',
      lost,
      [rerun],
    )
  }

  return {
    checkoutId,
    voidStatus: 'SUCCESS',
    ...(amount ? {amount: amount.value, currency: amount.currency} : {}),
    before,
    ...(input.window ? {window: {closesAt: formatPhTime(input.window.lastVoidSecond)}} : {}),
    reconciled: true,
  }
}

const emptyReason = (): InputError => new InputError(['reason'], (name) => ({message: `${name('reason')} must not be empty`}))

/**
 * Voids a checkout: reads it first and refuses (exit 5) when it cannot be voided or the void
 * window has closed, then sends the DELETE once (the client's `beforeSend` asks for consent). With `check: false`
 * (dry runs) nothing is read.
 */
export async function voidCheckoutChecked(
  client: ServiceClient,
  input: {
    checkoutId: string
    reason: string
    check?: boolean
    /** Called once the rules allow the void, right before the DELETE goes out (a bulk run journals it here). */
    beforeSend?: () => Promise<void>
  },
): Promise<VoidOutcome> {
  const {checkoutId} = input
  const reason = input.reason.trim()
  if (!reason) throw emptyReason()
  let before: CheckoutRecord | undefined
  let window: undefined | VoidWindow
  if (input.check !== false) {
    const attempt = {operation: checkoutOps.voidCheckout, checkoutId, body: {reason}}
    const read = await precheck(client, `checkout ${checkoutId}`, attempt, () => readCheckout(client, checkoutId))
    before = read.checkout
    try {
      window = checkVoid(before, read.now)
    } catch (error) {
      if (!(error instanceof RuleViolation)) throw error
      const paid = before.totalAmount
      await refuseByRule(client, error, {
        operation: checkoutOps.voidCheckout,
        checkoutId,
        body: {reason},
        amount: paid ? {value: String(paid.value), currency: paid.currency} : undefined,
      })
    }
  }

  const amount = before?.totalAmount ? `${before.totalAmount.value} ${before.totalAmount.currency ?? ''}`.trim() : undefined
  await input.beforeSend?.()
  let res
  try {
    res = await client.call(checkoutOps.voidCheckout, {
      params: {checkoutId},
      body: {reason},
      confirm: {action: `Void checkout ${checkoutId}${amount ? ` (${amount})` : ''}`, resourceId: checkoutId},
      ...(before?.totalAmount
        ? {auditNote: {amount: {value: String(before.totalAmount.value), currency: before.totalAmount.currency}}}
        : {}),
    })
  } catch (error) {
    if (answerLost(error)) return reconcileVoid(client, {checkoutId, reason, lost: error, before, window})
    throw withNextStep(error, checkoutId)
  }

  return {
    checkoutId: res.data.checkoutId ?? checkoutId,
    voidStatus: res.data.voidStatus,
    ...(before?.totalAmount ? {amount: String(before.totalAmount.value), currency: before.totalAmount.currency} : {}),
    requestId: res.requestId,
    before,
    ...(window ? {window: {closesAt: formatPhTime(window.lastVoidSecond)}} : {}),
  }
}

// ---------------------------------------------------------------------------------------------
// Refund
// ---------------------------------------------------------------------------------------------

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

function refundFailed(checkoutId: string, refundId: string, value: string, currency: string): RuleError {
  return new RuleError(
    `refund ${refundId} of ${value} ${currency} FAILED: nothing was refunded (a failed refund does not use up the one refund)`,
  ).withNext({step: 'refund-get', checkoutId, refundId})
}

/**
 * The answer to the POST was lost: lists the checkout's refunds once. A refund that was not there
 * before, of the amount sent, is this one: applied (or FAILED, reported as such). None -> not
 * applied when the server closed the connection, unknown when the CLI gave up waiting (see
 * serverClosedConnection). Either way running the command again is safe: one refund per
 * checkout, so a refund that lands late makes a rerun refuse, exit 5; it can never refund twice.
 */
async function reconcileRefund(
  client: ServiceClient,
  input: {checkoutId: string; reason: string; value: string; currency: string; lost: NetworkError; before?: RefundOutcome['before']},
): Promise<RefundOutcome> {
  const {checkoutId, reason, value, currency, lost, before} = input
  const check: NextStep = {step: 'refund-list', checkoutId}
  const rerun: NextStep = {step: 'refund-again', amount: value, checkoutId, currency, reason}
  if (!before) {
    // Nothing was read before sending, so a new refund cannot be told from an old one.
    throw new LostAnswerError(
      `${whatHappened(lost)} (the answer to the refund was lost); the outcome is unknown: check before trying again`,
      'unknown',
      lost,
      [check],
    )
  }

  let after: RefundRecord[]
  let readRequestId: string | undefined
  try {
    const read = await client.call(checkoutOps.listRefunds, {params: {checkoutId}})
    after = read.data
    readRequestId = read.requestId
  } catch (error) {
    throw new LostAnswerError(
      `${whatHappened(lost)} (the answer to the refund was lost), and reading the refunds of checkout ${checkoutId} failed too ` +
        `(${(error as Error).message}). The outcome is unknown: check before refunding again`,
      'unknown',
      lost,
      [check],
    )
  }

  const seen = refundSeen(after, {cents: centsOf(value), currency, known: before.refunds.map((r) => r.id)})
  const found = seen?.refund
  const outcome = seen?.outcome ?? (serverClosedConnection(lost) ? 'not applied' : 'unknown')
  await client.recordAudit({
    operation: checkoutOps.refundCheckout,
    params: {checkoutId},
    body: {reason, amount: {value, currency}},
    data: found ? {refundId: found.id, status: found.status} : undefined,
    outcome,
    reconciled: true,
    message:
      `answer lost (${whatHappened(lost)}); read refunds: ` +
      (found ? `new refund ${found.id} (${found.status ?? 'status not shown'})` : `no new refund of ${value} ${currency}`) +
      (outcome === 'unknown' ? '; the refund may still be in progress at the service' : '') +
      (readRequestId ? ` (read request id ${readRequestId})` : ''),
  })
  if (found?.status === 'FAILED') throw refundFailed(checkoutId, found.id, value, currency)
  if (outcome === 'unknown') {
    throw new LostAnswerError(
      `${whatHappened(lost)} (the answer to the refund was lost). The outcome is unknown: the service may still be working on it ` +
        `(checkout ${checkoutId} listed no new refund of ${value} ${currency} just after). Check its refunds before anything else; ` +
        'running the same refund again is safe (a checkout takes one refund, so it would refuse, never refund twice)',
      'unknown',
      lost,
      [check, rerun],
    )
  }

  if (!found) {
    throw new LostAnswerError(
      `${whatHappened(lost)} (the answer to the refund was lost). Reconciled: the refund was not applied ` +
        `(checkout ${checkoutId} has no new refund of ${value} ${currency}). It is safe to run the same command again: ` +
        'a checkout takes one refund, so a refund that went through in the meantime makes it refuse, never refund twice',
      'not applied',
      lost,
      [rerun],
    )
  }

  return {
    checkoutId,
    refundId: found.id,
    status: found.status ?? 'SUCCESS',
    amount: value,
    currency,
    reason,
    before,
    reconciled: true,
  }
}

/** The facts a refund's confirmation prompt words (the CLI words them: src/cli). */
export interface RefundToConfirm {
  checkoutId: string
  value: string
  currency: string
  /** Undefined in a dry run (nothing was read). */
  plan?: RefundPlan
}

/**
 * Refunds a checkout: reads it and its refunds, refuses (exit 5) a second refund, a refund
 * before the void window closed, or an amount over what is left; `amount` undefined refunds what
 * is left. Then sends the POST once (the client's `beforeSend` asks for consent). A refund the service
 * answers FAILED is reported as a refusal (exit 5): nothing moved, and it does not use up the
 * one refund.
 */
export async function refundCheckoutChecked(
  client: ServiceClient,
  input: {
    checkoutId: string
    reason: string
    amount?: Cents
    currency?: string
    check?: boolean
    /** The prompt's words for this refund; by default the row's ("Refund checkout <id>"). */
    confirm?: (refund: RefundToConfirm) => CallOptions['confirm']
    /** Called once the rules allow the refund, right before the POST goes out, with the refunds read before it (a bulk run journals it here). */
    beforeSend?: (refund: RefundToConfirm & {known: string[]}) => Promise<void>
  },
): Promise<RefundOutcome> {
  const {checkoutId} = input
  const reason = input.reason.trim()
  if (!reason) throw emptyReason()
  let before: RefundOutcome['before']
  let plan: RefundPlan | undefined
  if (input.check === false) {
    if (input.amount === undefined) {
      throw new InputError(['amount'], (name) => ({
        message: `${name('full')} needs to read the checkout; with ${name('dryRun')} pass ${name('amount')} instead`,
      }))
    }
  } else {
    const asked = input.amount === undefined ? undefined : {value: formatCents(input.amount), currency: input.currency}
    const attempt = {operation: checkoutOps.refundCheckout, checkoutId, body: {reason}, amount: asked}
    const read = await precheck(client, `checkout ${checkoutId}`, attempt, () => readCheckout(client, checkoutId))
    const refunds = await precheck(client, `the refunds of checkout ${checkoutId}`, attempt, async () => (await client.call(checkoutOps.listRefunds, {params: {checkoutId}})).data)
    before = {checkout: read.checkout, refunds}
    try {
      plan = checkRefund(before.checkout, before.refunds, {amount: input.amount, currency: input.currency}, read.now)
    } catch (error) {
      if (!(error instanceof RuleViolation)) throw error
      const currency = input.currency ?? before.checkout.totalAmount?.currency
      const asked = input.amount === undefined ? undefined : {value: formatCents(input.amount), currency}
      await refuseByRule(client, error, {operation: checkoutOps.refundCheckout, checkoutId, body: {reason}, amount: asked})
    }
  }

  const value = formatCents(plan?.amount ?? input.amount!)
  const currency = plan?.currency || input.currency || 'PHP'
  const confirm = input.confirm?.({checkoutId, value, currency, plan})
  await input.beforeSend?.({checkoutId, value, currency, plan, known: before?.refunds.map((r) => r.id) ?? []})
  let res
  try {
    res = await client.call(checkoutOps.refundCheckout, {
      params: {checkoutId},
      body: {reason, amount: {value, currency}},
      ...(confirm ? {confirm} : {}),
    })
  } catch (error) {
    if (answerLost(error)) {
      const outcome = await reconcileRefund(client, {checkoutId, reason, value, currency, lost: error, before})
      return plan ? {...outcome, kind: plan.kind, unrefundable: formatCents(plan.unrefundable)} : outcome
    }

    throw withNextStep(error, checkoutId)
  }

  const outcome: RefundOutcome = {
    checkoutId,
    refundId: res.data.refundId,
    status: res.data.status,
    amount: value,
    currency,
    ...(plan ? {kind: plan.kind, unrefundable: formatCents(plan.unrefundable)} : {}),
    reason,
    requestId: res.requestId,
    before,
  }
  if (outcome.status === 'FAILED') throw refundFailed(checkoutId, outcome.refundId, value, currency)

  return outcome
}

// ---------------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------------

/** PUT needs both fields: the one not given is taken from the current webhook. */
export async function updateWebhookMerged(
  client: ServiceClient,
  webhookId: string,
  change: Partial<WebhookRequest>,
): Promise<WebhookRecord> {
  if (change.name === undefined && change.callbackUrl === undefined) {
    throw new InputError(['name', 'callbackUrl'], (name) => ({message: `Nothing to change: pass ${name('name')} and/or ${name('callbackUrl')}`}))
  }

  // Checked before the current webhook is read: a URL the PUT would refuse sends nothing at all.
  const partial = WebhookRequest.partial().safeParse(change)
  if (!partial.success) throw new UsageError(`Invalid request: ${describeIssues(partial.error.issues)}`)
  let {name, callbackUrl} = change
  if (name === undefined || callbackUrl === undefined) {
    const current = (await client.call(checkoutOps.listWebhooks)).data.find((w) => w.id === webhookId)
    if (!current) {
      throw new ApiError({
        status: 404,
        code: CODES.webhookNotFound,
        message: `webhook ${webhookId} not found`,
        service: 'checkout',
        operationId: checkoutOps.updateWebhook.id,
        suggestions: [],
      }).withNext({step: 'webhook-list'})
    }

    name ??= current.name as WebhookRequest['name']
    callbackUrl ??= current.callbackUrl
  }

  return (await client.call(checkoutOps.updateWebhook, {params: {webhookId}, body: {name, callbackUrl}})).data
}
