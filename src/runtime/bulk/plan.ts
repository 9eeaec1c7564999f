/**
 * The plan of a bulk run, made before anything is sent: every row checked locally (./rows.ts),
 * then each checkout read and the money rules applied (src/services/checkout/rules.ts), as the
 * single commands do before sending. Rows the journal shows applied are skipped; rows with an
 * intent and no outcome are to be read back first. Only counts, totals and the refused rows are
 * kept, so the plan of a long file holds little more than that of a short one.
 */
import {createHash} from 'node:crypto'

import type {ServiceClient} from '../../http/client.js'
import type {InputRecord} from '../file-input.js'

import {ApiError, ExitCode} from '../../errors.js'
import {UnreadableAnswerError} from '../../http/answer.js'
import {readCheckout} from '../../services/checkout/money-change.js'
import {UNREADABLE_PRECHECK, unreadablePrecheck} from '../../services/checkout/money-errors.js'
import {type Cents, centsOf, formatCents} from '../../services/checkout/money.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {checkRefund, checkVoid, RuleViolation} from '../../services/checkout/rules.js'
import {type BulkInput} from './input.js'
import {type JournalState, type RowJournal} from './journal.js'
import {eachLimited} from './pool.js'
import {type BulkKind, type InputRow, type ParsedRow, parseRows, type RowRules} from './rows.js'

export type RowOutcome = 'applied' | 'planned' | 'refused' | 'skipped' | 'unknown'

/** One row of the result document. */
export interface RowResult {
  line: number
  checkoutId?: string
  outcome: RowOutcome
  refundId?: string
  amount?: string
  currency?: string
  code?: string
  message?: string
  /** The outcome was read back from the service after a run stopped (or an answer was lost). */
  reconciled?: true
}

/** A message kept in a plan is shortened: a refused row's reason is for people, and a plan must stay small. */
const KEPT_MESSAGE = 300

export interface Plan {
  kind: BulkKind
  rows: number
  toSend: number
  /** Rows journalled without an outcome: read back before anything is sent for them. */
  toReconcile: number
  skipped: number
  /** The refused rows by line (local checks and rules), as the results will show them. */
  refused: Map<number, RowResult>
  /** What would move, per currency (rows to send and rows to read back). */
  totals: Map<string, Cents>
  /** SHA-256 of the input's lines: the journal is tied to it. */
  inputHash: string
}

export interface PlanOptions {
  kind: BulkKind
  input: BulkInput
  rules: RowRules
  journal: JournalState
  concurrency: number
  onRow?: (planned: number) => void
}

/**
 * The records of the input, hashed as they pass (what each says, so a file saved again with
 * other line breaks or quoting is the same input).
 * @yields each record, unchanged
 */
async function* hashed(records: AsyncIterable<InputRecord>, hash: ReturnType<typeof createHash>): AsyncGenerator<InputRecord> {
  for await (const record of records) {
    hash.update(JSON.stringify(record) + '\n')
    yield record
  }
}

/** The journal says: `applied` (skip it), `reconcile` (an intent without an outcome, or an outcome unknown), or nothing. */
export function journalSays(entry: RowJournal | undefined): 'applied' | 'reconcile' | undefined {
  if (!entry?.intent) return undefined
  if (!entry.outcome || entry.outcome.outcome === 'unknown') return 'reconcile'
  return entry.outcome.outcome === 'applied' ? 'applied' : undefined
}

/** A refusal for the results: its code and the first words of its message, the reason first (the row has the checkout id). */
export function refusal(row: {checkoutId?: string; line: number}, code: string | undefined, said: string, amount?: {currency?: string; value: string}): RowResult {
  const subject = row.checkoutId ? `checkout ${row.checkoutId} ` : undefined
  const message = subject && said.toLowerCase().startsWith(subject.toLowerCase()) ? said.slice(subject.length) : said
  return {
    line: row.line,
    ...(row.checkoutId ? {checkoutId: row.checkoutId} : {}),
    outcome: 'refused',
    ...(amount ? {amount: amount.value, ...(amount.currency ? {currency: amount.currency} : {})} : {}),
    ...(code ? {code} : {}),
    message: message.length > KEPT_MESSAGE ? message.slice(0, KEPT_MESSAGE - 1) + '…' : message,
  }
}

/**
 * A read that the service refused for this row alone (404, a 4xx rule) makes the row refused (one
 * whose answer cannot be read is refused by planRow, `unreadable-answer`); an answer that would be
 * the same for every row (401/403, 5xx, the network) stops the plan.
 */
function rowRefusedBy(error: unknown): ApiError | undefined {
  if (!(error instanceof ApiError)) return undefined
  return error.exitCode === ExitCode.NotFound || error.exitCode === ExitCode.Refused ? error : undefined
}

/** Reads the checkout (and its refunds) and applies the rules: the amount that would move, or a refusal. */
async function planRow(client: ServiceClient, kind: BulkKind, row: InputRow): Promise<{amount: Cents; currency: string} | RowResult> {
  let reading = `checkout ${row.checkoutId}`
  try {
    const {checkout, now} = await readCheckout(client, row.checkoutId)
    if (kind === 'void') {
      checkVoid(checkout, now)
      const paid = checkout.totalAmount
      return {amount: centsOf(paid?.value) ?? 0n, currency: paid?.currency ?? ''}
    }

    reading = `the refunds of checkout ${row.checkoutId}`
    const refunds = (await client.call(checkoutOps.listRefunds, {params: {checkoutId: row.checkoutId}})).data
    const plan = checkRefund(checkout, refunds, {amount: row.amount, currency: row.currency}, now)
    return {amount: plan.amount, currency: plan.currency}
  } catch (error) {
    const asked = row.amount === undefined ? undefined : {currency: row.currency, value: formatCents(row.amount)}
    if (error instanceof RuleViolation) return refusal(row, error.code, error.message, asked)
    // What the row's change depends on could not be read: refused, never planned on a guess.
    if (error instanceof UnreadableAnswerError) return refusal(row, UNREADABLE_PRECHECK, unreadablePrecheck(reading, error), asked)
    const refused = rowRefusedBy(error)
    if (refused) return refusal(row, refused.code ?? `http-${refused.status}`, refused.serverMessage, asked)
    throw error
  }
}

/** The whole input read once before the plan sends its first read: its bounds and its format refuse it now (../file-input.ts). */
async function refuseOverCap(options: PlanOptions): Promise<void> {
  for await (const _record of options.input.records());
}

export async function planBulk(client: ServiceClient, options: PlanOptions): Promise<Plan> {
  await refuseOverCap(options)
  const hash = createHash('sha256')
  const plan: Plan = {inputHash: '', kind: options.kind, refused: new Map(), rows: 0, skipped: 0, toReconcile: 0, toSend: 0, totals: new Map()}
  const add = (currency: string, amount: Cents) => plan.totals.set(currency, (plan.totals.get(currency) ?? 0n) + amount)
  const rows = parseRows(hashed(options.input.records(), hash), options.rules)
  await eachLimited<ParsedRow>(rows, options.concurrency, async (parsed) => {
    plan.rows++
    if ('bad' in parsed) {
      plan.refused.set(parsed.bad.line, refusal(parsed.bad, parsed.bad.code, parsed.bad.message))
    } else {
      const {row} = parsed
      const entry = options.journal.rows.get(row.checkoutId)
      const says = journalSays(entry)
      if (says === 'applied') plan.skipped++
      else if (says === 'reconcile') {
        plan.toReconcile++
        if (entry?.intent?.amount && entry.intent.currency) add(entry.intent.currency, centsOf(entry.intent.amount) ?? 0n)
      } else {
        const result = await planRow(client, options.kind, row)
        if ('outcome' in result) plan.refused.set(row.line, result)
        else {
          plan.toSend++
          add(result.currency, result.amount)
        }
      }
    }

    options.onRow?.(plan.rows)
  })
  plan.inputHash = hash.digest('hex')
  return plan
}
