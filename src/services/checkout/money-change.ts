/**
 * The money path: a void or a refund, single or a bulk row, as its steps in order. What is
 * particular to each lives beside it (./void.ts, ./refund.ts: what to read, which rules, the
 * request, what a read-back shows); consent and audit are values the command hands in
 * (`MoneySteps`, below, on the steps of src/services/change.ts; built by src/cli/client-wiring.ts).
 *
 * 1. read and check: the reads the rules need (`precheck`: one that cannot be read refuses the
 *    change, nothing sent, exit 6), then the rules (a RuleViolation refuses it, exit 5); skipped
 *    in a dry run. Each refusal is recorded (`refused locally`, `refused by rule`).
 * 2. ask: consent to the change (a prompt, --yes, the production notice); a no is recorded.
 * 3. send: the request once (never retried), recorded whatever its outcome (Ctrl-C before the
 *    answer too); a bulk run journals its intent right before (`beforeSend`).
 * 4. read back when the answer is lost, or came and cannot be read: one fresh read says what it
 *    can (./reconcile.ts holds the rule), recorded as a reconciliation (`reconciledRecord`, the
 *    one builder of that line, which a bulk run's read-back of a journalled row uses too):
 *    - the read shows the change -> applied: the outcome as usual with `reconciled: true` (exit 0);
 *    - it does not, and the server closed the connection -> `LostAnswerError` "not applied"
 *      (exit 7, safe to run again);
 *    - it does not, and the CLI gave up waiting, or the answer could not be read ->
 *      `LostAnswerError` with the outcome unknown (exit 7, or 6 for an unreadable answer);
 *    - the read fails too -> unknown as well, never "not applied".
 * 5. record: each step above records its own line; the command gets the outcome.
 */
import type {ApiResponse, ServiceClient} from '../../http/client.js'
import type {Operation} from '../../http/operation.js'

import {UnreadableAnswerError} from '../../http/answer.js'
import {ask, type Attempt, type AttemptRecord, type AuditAmount, type ChangeSteps, type ChangeWords, record, sendRecorded} from '../change.js'
import {serviceNow} from '../service-clock.js'
import {
  answerLost,
  type LostAnswer,
  LostAnswerError,
  PrecheckUnreadableError,
  ruleError,
  serverClosedConnection,
  UNREADABLE_PRECHECK,
  unreadablePrecheck,
  whatHappened,
  withNextStep,
} from './money-errors.js'
import {checkoutOps, type CheckoutRecord} from './operations.js'
import {RuleViolation} from './rules.js'

/** The steps a command hands to the money path; `beforeSend` runs once the change is asked for, right before it goes out. */
export interface MoneySteps extends ChangeSteps {
  beforeSend?: (request: MoneyRequest) => Promise<void>
}

/** A service client and the steps: what the money path is given. */
export interface MoneyDeps extends MoneySteps {
  client: ServiceClient
}

/** What goes out, once checked: the body, the amount its audit line names, the prompt's words; a refund's amount and the refunds known before it. */
export interface MoneyRequest {
  checkoutId: string
  reason: string
  body: {reason: string; amount?: {currency: string; value: string}}
  amount?: AuditAmount
  words?: ChangeWords
  /** A refund's: the refunds listed before it, so that a read-back tells a new one from them. */
  known?: string[]
}

/** What a read after a lost answer shows: `seen` (undefined: not shown), the audit line's words for it, and the outcome when applied. */
export interface ReadBack<Outcome> {
  seen?: 'applied' | 'not applied'
  found: string
  data?: unknown
  readRequestId?: string
  outcome?: Outcome
  /** Thrown instead, once recorded (a refund the service answered FAILED). */
  failure?: Error
  /** What the read showed, for the error when it settles nothing ("PAYMENT_SUCCESS"). */
  shown?: string
}

/** A void or a refund, as the steps need it (./void.ts, ./refund.ts). */
export interface MoneyChange<Checked, Answer, Outcome> {
  operation: Operation
  checkoutId: string
  /** What the change is called in its messages: "void", "refund". */
  noun: string
  /** The attempt as a refusal before sending records it (with what was read so far). */
  unsent(): {body: unknown; amount?: AuditAmount}
  /** Step 1: the reads (through `reads`) and the rules. */
  check(client: ServiceClient, reads: Reads): Promise<Checked>
  request(checked: Checked | undefined): MoneyRequest
  send(client: ServiceClient, request: MoneyRequest): Promise<ApiResponse<Answer>>
  answered(answer: ApiResponse<Answer>, request: MoneyRequest, checked: Checked | undefined): Outcome
  /** Step 4: one fresh read; throws a LostAnswerError itself when nothing can be told (nothing was read before). */
  readBack(client: ServiceClient, request: MoneyRequest, checked: Checked | undefined, lost?: LostAnswer): Promise<ReadBack<Outcome>>
  /** The error when the read-back does not settle it: `readFailed` when the read failed too, else what it showed (`back`). */
  unsettled(lost: LostAnswer, request: MoneyRequest, how: {outcome: 'not applied' | 'unknown'; readFailed?: Error; back?: ReadBack<Outcome>}): LostAnswerError
}

/** A read of step 1 (`what`: "checkout chk_1"): one that cannot be read refuses the change. */
export type Reads = <T>(what: string, get: () => Promise<T>) => Promise<T>

export async function readCheckout(client: Pick<ServiceClient, 'call'>, checkoutId: string): Promise<{checkout: CheckoutRecord; now: Date}> {
  const res = await client.call(checkoutOps.getCheckout, {params: {checkoutId}})
  return {checkout: res.data, now: serviceNow(res.headers)}
}

/** A void or refund through its steps, in order: read and check, ask, send, read back when the answer is lost, record. */
export async function runMoneyChange<C, A, O>(deps: MoneyDeps, change: MoneyChange<C, A, O>, check: boolean): Promise<O> {
  const checked = check ? await readAndCheck(deps, change) : undefined
  const request = change.request(checked)
  const attempt: Attempt = {body: request.body, note: request.amount ? {amount: request.amount} : undefined, operation: change.operation, params: {checkoutId: change.checkoutId}}
  await ask(deps, attempt, request.words)
  await deps.beforeSend?.(request)
  try {
    const answer = await sendRecorded(deps, attempt, () => change.send(deps.client, request))
    return change.answered(answer, request, checked)
  } catch (error) {
    if (answerLost(error)) return reconcile(deps, change, request, checked, error)
    throw withNextStep(error, change.checkoutId)
  }
}

/** Step 1. A read that cannot be read, or a rule, refuses the change: recorded, then thrown; nothing is sent. */
async function readAndCheck<C, A, O>(deps: MoneyDeps, change: MoneyChange<C, A, O>): Promise<C> {
  const {checkoutId, operation} = change
  const refuse = async (refusal: Pick<AttemptRecord, 'code' | 'message' | 'outcome'>) => {
    const {amount, body} = change.unsent()
    await record(deps, {body, note: amount ? {amount} : undefined, operation, params: {checkoutId}, ...refusal})
  }

  const read: Reads = async <T>(what: string, get: () => Promise<T>): Promise<T> => {
    try {
      return await get()
    } catch (error) {
      if (!(error instanceof UnreadableAnswerError)) throw error
      const refused = new PrecheckUnreadableError(unreadablePrecheck(what, error), error).withNext({step: 'checkout-get', checkoutId})
      await refuse({code: UNREADABLE_PRECHECK, message: refused.message, outcome: 'refused locally'})
      throw refused
    }
  }

  try {
    return await change.check(deps.client, read)
  } catch (error) {
    if (!(error instanceof RuleViolation)) throw error
    await refuse({code: error.code, message: error.serviceMessage, outcome: 'refused by rule'})
    throw ruleError(error, checkoutId)
  }
}

/** Step 4: the answer was lost (or unreadable); one read says what it can, recorded as a reconciliation. */
async function reconcile<C, A, O>(deps: MoneyDeps, change: MoneyChange<C, A, O>, request: MoneyRequest, checked: C | undefined, lost: LostAnswer): Promise<O> {
  let back: ReadBack<O>
  try {
    back = await change.readBack(deps.client, request, checked, lost)
  } catch (error) {
    if (error instanceof LostAnswerError) throw error
    throw change.unsettled(lost, request, {outcome: 'unknown', readFailed: error as Error})
  }

  const outcome = back.seen ?? (serverClosedConnection(lost) ? 'not applied' : 'unknown')
  const pending = outcome === 'unknown' ? `; the ${change.noun} may still be in progress at the service` : ''
  await record(deps, reconciledRecord(change.operation, request, {...back, cause: `answer lost (${whatHappened(lost)})`, found: back.found + pending, outcome}))
  if (back.failure) throw back.failure
  if (outcome === 'applied' && back.outcome !== undefined) return back.outcome
  throw change.unsettled(lost, request, {back, outcome: outcome === 'applied' ? 'unknown' : outcome})
}

/**
 * The audit line of a reconciliation: what a read after the answer went missing found (`cause`:
 * why it was read). Built here only, for a lost answer and for a bulk row an earlier run left
 * without an outcome.
 */
export function reconciledRecord(
  operation: Operation,
  request: Pick<MoneyRequest, 'amount' | 'body' | 'checkoutId'>,
  read: {cause: string; found: string; outcome: AttemptRecord['outcome']; data?: unknown; readRequestId?: string},
): AttemptRecord {
  return {
    body: request.body,
    ...(read.data === undefined ? {} : {data: read.data}),
    message: `${read.cause}; ${read.found}` + (read.readRequestId ? ` (read request id ${read.readRequestId})` : ''),
    note: request.amount ? {amount: request.amount} : undefined,
    operation,
    outcome: read.outcome,
    params: {checkoutId: request.checkoutId},
    reconciled: true,
  }
}
