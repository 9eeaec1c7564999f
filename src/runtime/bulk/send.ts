import pRetry from 'p-retry'

/**
 * The sends of a bulk run, after the plan was confirmed: the input read again, row by row, at most
 * `concurrency` rows at a time. Each row goes through the money path of the single commands
 * (src/services/checkout/money-change.ts: read and check, ask, send, read back a lost answer,
 * record), with its intent journalled (and on disk) right before its request goes out and its
 * outcome after.
 *
 * Nothing is sent for a row the plan refused (the confirmation named the others), nor for a row
 * the journal shows applied. A row journalled without an outcome (a run killed, an answer lost)
 * is read back first, by the same read-back as a lost answer: a refund that was not there before
 * its intent, of its amount, or a voided checkout, is that row's, and it is reported applied
 * without sending anything.
 */
import {ApiError, ExitCode, NetworkError, RuleError, UsageError} from '../../errors.js'
import {AnswerTooLargeError} from '../../http/answer-limit.js'
import {UnreadableAnswerError} from '../../http/answer.js'
import {retryAfterMs} from '../../http/retry.js'
import {type AttemptOutcome, record} from '../../services/change.js'
import {type MoneyDeps, type MoneyRequest, reconciledRecord} from '../../services/checkout/money-change.js'
import {LostAnswerError, PrecheckUnreadableError, UNREADABLE_PRECHECK} from '../../services/checkout/money-errors.js'
import {type Cents, centsOf, formatCents} from '../../services/checkout/money.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {refundChange, refundCheckoutChecked} from '../../services/checkout/refund.js'
import {voidChange, voidCheckoutChecked} from '../../services/checkout/void.js'
import {type BulkInput} from './input.js'
import {type JournalIntent, type JournalState, type JournalWriter} from './journal.js'
import {journalSays, type Plan, refusal, type RowResult} from './plan.js'
import {eachLimited} from './pool.js'
import {type BulkKind, type InputRow, type ParsedRow, parseRows, type RowRules} from './rows.js'

/**
 * A 429 answer to a write: the service did not take it. Every row waits (its `Retry-After`, else
 * 1 s doubling), then this row is read and tried again, up to this many attempts in all.
 */
const RATE_LIMIT_ATTEMPTS = 4
const RATE_LIMIT_WAIT_MS = 1000
/** A longer `Retry-After` is cut to this: the run stays alive and says what it does. */
const RATE_LIMIT_MAX_WAIT_MS = 60_000

export interface SendOptions {
  kind: BulkKind
  input: BulkInput
  rules: RowRules
  journal: JournalState
  writer: JournalWriter
  plan: Plan
  concurrency: number
  /** Keep the results of every row (the JSON document); otherwise only refused and unknown rows. */
  keepAll: boolean
  /** Called once a row that needed the service is done (the progress bar). */
  onRow?: (result: RowResult) => void
  sleep?: (ms: number) => Promise<void>
}

export interface SendReport {
  results: RowResult[]
  counts: Record<'applied' | 'reconciled' | 'refused' | 'skipped' | 'unknown', number>
  /** What moved, per currency. */
  applied: Map<string, Cents>
}

const operationOf = (kind: BulkKind) => (kind === 'refund' ? checkoutOps.refundCheckout : checkoutOps.voidCheckout)

/** What an error makes of a row, and what the journal says of its intent (when one was written). */
function rowAfterError(
  row: InputRow,
  error: unknown,
  asked?: {currency?: string; value: string},
): {journal: 'not-applied' | 'refused' | 'unknown'; result: RowResult} | undefined {
  const base = {checkoutId: row.checkoutId, line: row.line}
  const unknown = (code: string, message: string, journal: 'not-applied' | 'unknown') => ({
    journal,
    result: {...base, code, message, outcome: 'unknown' as const},
  })
  if (error instanceof LostAnswerError) {
    return error.reconciled === 'not applied'
      ? unknown('not-applied', error.message, 'not-applied')
      : unknown('outcome-unknown', error.message, 'unknown')
  }

  if (error instanceof NetworkError) return unknown('network', error.message, error.outcomeUnknown ? 'unknown' : 'not-applied')
  // An answer over --max-body: the write's own (if a read-back did not settle it) or a read-back's.
  if (error instanceof AnswerTooLargeError) return unknown('answer-too-large', error.message, error.outcomeUnknown ? 'unknown' : 'not-applied')
  // A read the row depends on could not be read: refused before sending (the money path audited it).
  if (error instanceof PrecheckUnreadableError) return {journal: 'refused', result: refusal(row, error.code, error.message, asked)}
  // Any other answer that cannot be read is a read-back's: whether the change landed is not known.
  if (error instanceof UnreadableAnswerError) return unknown(UNREADABLE_PRECHECK, error.message, 'unknown')
  if (error instanceof RuleError) return {journal: 'refused', result: refusal(row, error.code ?? 'refused', error.message, asked)}
  if (error instanceof ApiError) {
    if (error.exitCode === ExitCode.Auth) return undefined
    if (error.exitCode === ExitCode.NotFound || error.exitCode === ExitCode.Refused) {
      return {journal: 'refused', result: refusal(row, error.code ?? `http-${error.status}`, error.serverMessage, asked)}
    }

    return unknown(error.code ?? `http-${error.status}`, error.serverMessage, 'unknown')
  }

  // An InputError names the input plainly, which is the row's column (`reason`), never a flag.
  if (error instanceof UsageError) return {journal: 'refused', result: refusal(row, 'invalid-input', error.message, asked)}
  return undefined
}

/** The run's shared state: the report, the pause after a 429 every row waits out. */
interface Run {
  money: MoneyDeps
  options: SendOptions
  report: SendReport
  pausedUntil: number
  sleep: (ms: number) => Promise<void>
}

export async function sendBulk(money: MoneyDeps, options: SendOptions): Promise<SendReport> {
  const run: Run = {
    money,
    options,
    pausedUntil: 0,
    report: {applied: new Map(), counts: {applied: 0, reconciled: 0, refused: 0, skipped: 0, unknown: 0}, results: []},
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
  }
  const rows = parseRows(options.input.records(), options.rules)
  await eachLimited<ParsedRow>(rows, options.concurrency, async (parsed) => {
    const line = 'bad' in parsed ? parsed.bad.line : parsed.row.line
    const refused = options.plan.refused.get(line)
    if (refused) {
      await recordPlanRefusal(run, refused, 'row' in parsed ? parsed.row.reason : undefined)
      finish(run, refused, false)
      return
    }

    if ('bad' in parsed) throw new UsageError(`${options.input.label} changed between the plan and the sends (line ${line}); nothing more was sent`)
    const {row} = parsed
    const entry = options.journal.rows.get(row.checkoutId)
    const says = journalSays(entry)
    if (says === 'applied') {
      finish(run, skipped(row, entry!.intent!, entry!.outcome!.refundId), false)
      return
    }

    if (run.pausedUntil > Date.now()) await run.sleep(run.pausedUntil - Date.now())
    const readBack = says === 'reconcile' ? await readBackRow(run, row, entry!.intent!) : undefined
    finish(run, readBack ?? (await sendRow(run, row)), true)
  })
  run.report.results.sort((a, b) => a.line - b.line)
  return run.report
}

/** Counts a row's result (and keeps it when the document wants it, or it is refused or unknown). */
function finish({options, report}: Run, result: RowResult, needed: boolean): void {
  if (result.outcome === 'applied' || result.outcome === 'skipped' || result.outcome === 'refused' || result.outcome === 'unknown')
    report.counts[result.outcome]++
  if (result.reconciled) report.counts.reconciled++
  if (result.outcome === 'applied' && result.amount && result.currency) {
    report.applied.set(result.currency, (report.applied.get(result.currency) ?? 0n) + (centsOf(result.amount) ?? 0n))
  }

  if (options.keepAll || result.outcome === 'refused' || result.outcome === 'unknown') report.results.push(result)
  if (needed) options.onRow?.(result)
}

/** Refused in the plan: never sent, even if the service would take it now (it was not confirmed); its audit line says why. */
async function recordPlanRefusal({money, options}: Run, refused: RowResult, reason: string | undefined): Promise<void> {
  const local = refused.code === 'invalid-row' || refused.code === 'duplicate-row' || refused.code === UNREADABLE_PRECHECK
  const outcome: AttemptOutcome = local ? 'refused locally' : refused.code?.startsWith('http-') ? 'not sent' : 'refused by rule'
  await record(money, {
    body: {reason, ...(refused.amount ? {amount: {currency: refused.currency, value: refused.amount}} : {})},
    code: refused.code,
    message: refused.message,
    operation: operationOf(options.kind),
    outcome,
    params: {checkoutId: refused.checkoutId},
  })
}

function skipped(row: InputRow, intent: JournalIntent, refundId: string | undefined): RowResult {
  const {amount, currency} = intent
  return {
    checkoutId: row.checkoutId,
    line: row.line,
    outcome: 'skipped',
    ...(refundId ? {refundId} : {}),
    ...(amount ? {amount, currency} : {}),
    message: 'applied by an earlier run (journal)',
  }
}

/**
 * A row journalled without an outcome: did its request land? The lost answer's read-back, and its
 * reconciled audit line; reads only. Undefined: not there (or a FAILED refund): the row is sent again.
 */
async function readBackRow({money, options}: Run, row: InputRow, intent: JournalIntent): Promise<RowResult | undefined> {
  const {kind, writer} = options
  const amount = intent.amount === undefined ? undefined : {currency: intent.currency ?? '', value: intent.amount}
  const request: MoneyRequest = {body: {reason: row.reason, ...(kind === 'refund' && amount ? {amount} : {})}, checkoutId: row.checkoutId, known: intent.known ?? [], reason: row.reason}
  let result: RowResult | undefined
  try {
    const change = kind === 'void' ? voidChange(row.checkoutId, row.reason) : refundChange({amount: centsOf(intent.amount), checkoutId: row.checkoutId, currency: intent.currency, reason: row.reason})
    const back = await change.readBack(money.client, request, undefined)
    if (back.seen !== 'applied' || !back.outcome) return undefined
    const paid = 'voidStatus' in back.outcome && back.outcome.amount ? {currency: back.outcome.currency, value: back.outcome.amount} : undefined
    const cause = 'a run stopped before the outcome was journalled'
    await record(money, reconciledRecord(change.operation, {...request, amount: paid}, {...back, cause, outcome: 'applied'}))
    const {amount: value, currency, refundId} = back.outcome as {amount?: string; currency?: string; refundId?: string}
    result = {checkoutId: row.checkoutId, line: row.line, outcome: 'applied', reconciled: true, ...(value ? {amount: value, currency} : {}), ...(refundId ? {refundId} : {})}
  } catch (error) {
    const after = rowAfterError(row, error)
    if (!after) throw error
    return {...after.result, message: `could not read back what an earlier run sent: ${after.result.message ?? ''}`, outcome: 'unknown'}
  }

  await writer.outcome({id: row.checkoutId, outcome: 'applied', ...(result.refundId ? {refundId: result.refundId} : {})})
  return result
}

/** The money path of the single command, with the intent journalled right before the request. */
async function sendRow(run: Run, row: InputRow): Promise<RowResult> {
  const {kind, writer} = run.options
  let intentWritten = false
  const asked = row.amount === undefined ? undefined : {currency: row.currency, value: formatCents(row.amount)}
  const money: MoneyDeps = {
    ...run.money,
    async beforeSend(request) {
      const {amount} = request.body
      await writer.intent(amount ? {amount: amount.value, currency: amount.currency, id: row.checkoutId, known: (request.known ?? []).slice(0, 100)} : {id: row.checkoutId})
      intentWritten = true
    },
  }
  const sendOnce = async (): Promise<RowResult> => {
    const outcome =
      kind === 'void'
        ? await voidCheckoutChecked(money, {checkoutId: row.checkoutId, reason: row.reason})
        : await refundCheckoutChecked(money, {amount: row.amount, checkoutId: row.checkoutId, currency: row.currency, reason: row.reason})
    const refundId = 'refundId' in outcome ? outcome.refundId : undefined
    await writer.outcome({id: row.checkoutId, outcome: 'applied', ...(refundId ? {refundId} : {})})
    return {
      checkoutId: row.checkoutId,
      line: row.line,
      outcome: 'applied',
      ...(outcome.amount ? {amount: outcome.amount, currency: outcome.currency} : {}),
      ...(refundId ? {refundId} : {}),
      ...(outcome.reconciled ? {reconciled: true} : {}),
    }
  }

  try {
    // A 429 means the service did not take the write: p-retry tries the row again after the
    // wait (every worker pauses), reading it anew through the money path; never resent blindly.
    return await pRetry(sendOnce, {
      minTimeout: 0,
      async onFailedAttempt({attemptNumber, error, retriesLeft}) {
        if (!isRateLimited(error) || retriesLeft === 0) return
        if (intentWritten) await writer.outcome({code: 'rate-limited', id: row.checkoutId, outcome: 'not-applied'})
        intentWritten = false
        const wait = Math.min(retryAfterMs(error.retryAfter) ?? RATE_LIMIT_WAIT_MS * 2 ** (attemptNumber - 1), RATE_LIMIT_MAX_WAIT_MS)
        run.pausedUntil = Math.max(run.pausedUntil, Date.now() + wait)
        await run.sleep(run.pausedUntil - Date.now())
      },
      retries: RATE_LIMIT_ATTEMPTS - 1,
      shouldRetry: ({error}) => isRateLimited(error),
    })
  } catch (error) {
    const after = rowAfterError(row, error, asked)
    if (!after) throw error
    if (intentWritten) await writer.outcome({code: after.result.code, id: row.checkoutId, outcome: after.journal})
    return after.result
  }
}

function isRateLimited(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 429
}
