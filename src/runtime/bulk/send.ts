import pRetry from 'p-retry'

/**
 * The sends of a bulk run, after the plan was confirmed: the input read again, row by row, at most
 * `concurrency` rows at a time. Each row goes through the single commands' workflow
 * (src/services/checkout/workflows.ts: read, rules, one request, reconciliation of a lost answer),
 * with its intent journalled (and on disk) right before its request goes out and its outcome after.
 *
 * Nothing is sent for a row the plan refused (the confirmation named the others), nor for a row
 * the journal shows applied. A row journalled without an outcome (a run killed, an answer lost)
 * is read back first: a refund that was not there before its intent, of its amount, or a voided
 * checkout, is that row's, and it is reported applied without sending anything.
 */
import type {AttemptOutcome, ServiceClient} from '../../http/client.js'

import {ApiError, ExitCode, NetworkError, RuleError, UsageError} from '../../errors.js'
import {UnreadableAnswerError} from '../../http/answer.js'
import {retryAfterMs} from '../../http/retry.js'
import {type Cents, centsOf, formatCents} from '../../services/checkout/money.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {refundSeen, voidSeen} from '../../services/checkout/reconcile.js'
import {
  LostAnswerError,
  PrecheckUnreadableError,
  readCheckout,
  refundCheckoutChecked,
  UNREADABLE_PRECHECK,
  voidCheckoutChecked,
} from '../../services/checkout/workflows.js'
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
  // A read the row depends on could not be read: refused before sending (the workflow audited it).
  if (error instanceof PrecheckUnreadableError) return {journal: 'refused', result: refusal(row, error.code, error.message, asked)}
  // Any other answer that cannot be read is the write's own (or a read-back's): whether it landed is not known.
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

export async function sendBulk(client: ServiceClient, options: SendOptions): Promise<SendReport> {
  const {kind, writer} = options
  const operation = operationOf(kind)
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const report: SendReport = {applied: new Map(), counts: {applied: 0, reconciled: 0, refused: 0, skipped: 0, unknown: 0}, results: []}
  let pausedUntil = 0

  const finish = (result: RowResult, needed: boolean) => {
    if (result.outcome === 'applied' || result.outcome === 'skipped' || result.outcome === 'refused' || result.outcome === 'unknown')
      report.counts[result.outcome]++
    if (result.reconciled) report.counts.reconciled++
    if (result.outcome === 'applied' && result.amount && result.currency) {
      report.applied.set(result.currency, (report.applied.get(result.currency) ?? 0n) + (centsOf(result.amount) ?? 0n))
    }

    if (options.keepAll || result.outcome === 'refused' || result.outcome === 'unknown') report.results.push(result)
    if (needed) options.onRow?.(result)
  }

  /** A row journalled without an outcome: did its request land? Reads only. */
  const readBack = async (row: InputRow, intent: JournalIntent): Promise<RowResult | undefined> => {
    const note = 'a run stopped before the outcome was journalled'
    if (kind === 'void') {
      const {checkout} = await readCheckout(client, row.checkoutId)
      if (voidSeen(checkout) !== 'applied') return undefined
      const paid = checkout.totalAmount
      const amount = paid ? {currency: paid.currency, value: String(paid.value)} : undefined
      await client.recordAudit({
        body: {reason: row.reason},
        message: `${note}; read checkout: paymentStatus VOIDED`,
        note: amount ? {amount} : undefined,
        operation,
        outcome: 'applied',
        params: {checkoutId: row.checkoutId},
        reconciled: true,
      })
      return {
        checkoutId: row.checkoutId,
        line: row.line,
        outcome: 'applied',
        reconciled: true,
        ...(amount ? {amount: amount.value, currency: amount.currency} : {}),
      }
    }

    const listed = (await client.call(checkoutOps.listRefunds, {params: {checkoutId: row.checkoutId}})).data
    const seen = refundSeen(listed, {cents: centsOf(intent.amount), currency: intent.currency, known: intent.known ?? []})
    // Not there, or there and FAILED (not applied: nothing moved, the one refund not used up): the row is sent again.
    if (seen?.outcome !== 'applied') return undefined
    const found = seen.refund
    await client.recordAudit({
      body: {amount: {currency: intent.currency, value: intent.amount}, reason: row.reason},
      data: {refundId: found.id, status: found.status},
      message: `${note}; read refunds: new refund ${found.id} (${found.status ?? 'status not shown'})`,
      operation,
      outcome: 'applied',
      params: {checkoutId: row.checkoutId},
      reconciled: true,
    })
    return {
      amount: intent.amount,
      checkoutId: row.checkoutId,
      currency: intent.currency,
      line: row.line,
      outcome: 'applied',
      reconciled: true,
      refundId: found.id,
    }
  }

  /** The workflow of the single command, with the intent journalled right before the request. */
  const send = async (row: InputRow): Promise<RowResult> => {
    let intentWritten = false
    const asked = row.amount === undefined ? undefined : {currency: row.currency, value: formatCents(row.amount)}
    const sendOnce = async (): Promise<RowResult> => {
      if (kind === 'void') {
        const outcome = await voidCheckoutChecked(client, {
          beforeSend: async () => {
            await writer.intent({id: row.checkoutId})
            intentWritten = true
          },
          checkoutId: row.checkoutId,
          reason: row.reason,
        })
        await writer.outcome({id: row.checkoutId, outcome: 'applied'})
        return {
          checkoutId: row.checkoutId,
          line: row.line,
          outcome: 'applied',
          ...(outcome.amount ? {amount: outcome.amount, currency: outcome.currency} : {}),
          ...(outcome.reconciled ? {reconciled: true} : {}),
        }
      }

      const outcome = await refundCheckoutChecked(client, {
        amount: row.amount,
        async beforeSend({currency, known, value}) {
          await writer.intent({amount: value, currency, id: row.checkoutId, known: known.slice(0, 100)})
          intentWritten = true
        },
        checkoutId: row.checkoutId,
        currency: row.currency,
        reason: row.reason,
      })
      await writer.outcome({id: row.checkoutId, outcome: 'applied', refundId: outcome.refundId})
      return {
        amount: outcome.amount,
        checkoutId: row.checkoutId,
        currency: outcome.currency,
        line: row.line,
        outcome: 'applied',
        refundId: outcome.refundId,
        ...(outcome.reconciled ? {reconciled: true} : {}),
      }
    }

    try {
      // A 429 means the service did not take the write: p-retry tries the row again after the
      // wait (every worker pauses), reading it anew through the workflow; never resent blindly.
      return await pRetry(sendOnce, {
        minTimeout: 0,
        async onFailedAttempt({attemptNumber, error, retriesLeft}) {
          if (!isRateLimited(error) || retriesLeft === 0) return
          if (intentWritten) await writer.outcome({code: 'rate-limited', id: row.checkoutId, outcome: 'not-applied'})
          intentWritten = false
          const wait = Math.min(retryAfterMs(error.retryAfter) ?? RATE_LIMIT_WAIT_MS * 2 ** (attemptNumber - 1), RATE_LIMIT_MAX_WAIT_MS)
          pausedUntil = Math.max(pausedUntil, Date.now() + wait)
          await sleep(pausedUntil - Date.now())
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

  const rows = parseRows(options.input.records(), options.rules)
  await eachLimited<ParsedRow>(rows, options.concurrency, async (parsed) => {
    const line = 'bad' in parsed ? parsed.bad.line : parsed.row.line
    const refused = options.plan.refused.get(line)
    if (refused) {
      // Refused in the plan: never sent, even if the service would take it now (it was not confirmed).
      const checkoutId = refused.checkoutId
      const local = refused.code === 'invalid-row' || refused.code === 'duplicate-row' || refused.code === UNREADABLE_PRECHECK
      const outcome: AttemptOutcome = local ? 'refused locally' : refused.code?.startsWith('http-') ? 'not sent' : 'refused by rule'
      const reason = 'row' in parsed ? parsed.row.reason : undefined
      await client.recordAudit({
        body: {reason, ...(refused.amount ? {amount: {currency: refused.currency, value: refused.amount}} : {})},
        code: refused.code,
        message: refused.message,
        operation,
        outcome,
        params: {checkoutId},
      })
      finish(refused, false)
      return
    }

    if ('bad' in parsed)
      throw new UsageError(`${options.input.label} changed between the plan and the sends (line ${line}); nothing more was sent`)
    const {row} = parsed
    const entry = options.journal.rows.get(row.checkoutId)
    const says = journalSays(entry)
    if (says === 'applied') {
      const {refundId} = entry!.outcome!
      const {amount, currency} = entry!.intent!
      finish(
        {
          checkoutId: row.checkoutId,
          line,
          outcome: 'skipped',
          ...(refundId ? {refundId} : {}),
          ...(amount ? {amount, currency} : {}),
          message: 'applied by an earlier run (journal)',
        },
        false,
      )
      return
    }

    if (pausedUntil > Date.now()) await sleep(pausedUntil - Date.now())
    let result: RowResult | undefined
    if (says === 'reconcile') {
      try {
        result = await readBack(row, entry!.intent!)
      } catch (error) {
        const after = rowAfterError(row, error)
        if (!after) throw error
        result = {
          ...after.result,
          message: `could not read back what an earlier run sent: ${after.result.message ?? ''}`,
          outcome: 'unknown',
        }
      }

      if (result?.outcome === 'applied')
        await writer.outcome({id: row.checkoutId, outcome: 'applied', ...(result.refundId ? {refundId: result.refundId} : {})})
    }

    finish(result ?? (await send(row)), true)
  })
  report.results.sort((a, b) => a.line - b.line)
  return report
}

function isRateLimited(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 429
}
