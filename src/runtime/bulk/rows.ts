import type {InputRecord, InputShape} from '../file-input.js'

/**
 * The rows of a bulk void or refund file, checked locally one by one as they are read:
 * - CSV with a header naming its columns (`checkoutId,amount,currency,reason`, in any order;
 *   RFC 4180 quoting, read by csv-parse through ../file-input.ts);
 * - JSON lines with the same fields (`{"checkoutId": "...", "amount": "50.00", ...}`);
 * - for voids, also one checkout id per line.
 * A malformed row is refused with its line and why, and the others go on; a file that cannot be
 * one of these (no checkoutId column, an unknown column) is refused whole (exit 2, nothing sent).
 */
import {type Cents, centsOf, formatCents, MoneyError, parsePositiveAmount} from '../../services/checkout/money.js'

export type BulkKind = 'refund' | 'void'

export interface InputRow {
  line: number
  checkoutId: string
  /** Undefined: a full refund (what is left). Always undefined for a void. */
  amount?: Cents
  currency?: string
  reason: string
}

export interface BadRow {
  line: number
  checkoutId?: string
  code: 'duplicate-row' | 'invalid-row'
  message: string
}

export type ParsedRow = {bad: BadRow} | {row: InputRow}

export interface RowRules {
  kind: BulkKind
  /** `--reason`: for rows that give none. */
  defaultReason?: string
  /** Why this text cannot be a checkout id (one path segment), or undefined: the CLI's own check. */
  idProblem(value: string): string | undefined
}

const COLUMNS: readonly Column[] = ['checkoutId', 'amount', 'currency', 'reason']
type Column = 'amount' | 'checkoutId' | 'currency' | 'reason'
const BLANK_ONLY = /^[\p{Z}\p{Cc}\p{Cf}]*$/u
const CURRENCY = /^[A-Z]{3}$/

/** What a bulk file may hold: CSV by header or JSON lines (../file-input.ts); for voids also one checkout id per line. */
export function bulkShape(kind: BulkKind): InputShape {
  return {
    columns: COLUMNS,
    example: kind === 'refund' ? 'checkoutId,amount,currency,reason' : 'checkoutId,reason (or one checkout id per line)',
    required: ['checkoutId'],
    ...(kind === 'void' ? {bare: 'checkoutId'} : {}),
  }
}

type Fields = Partial<Record<Column, unknown>>

/** The row's fields checked and normalised, or why it is refused. */
function checkFields(line: number, fields: Fields, rules: RowRules): ParsedRow {
  const bad = (message: string, checkoutId?: string): ParsedRow => ({bad: {code: 'invalid-row', line, message, ...(checkoutId ? {checkoutId} : {})}})
  const id = fields.checkoutId
  if (typeof id !== 'string') return bad('checkoutId: missing')
  const checkoutId = id.trim()
  const idWrong = rules.idProblem(checkoutId)
  if (idWrong) return bad(`checkoutId: ${idWrong}`)
  const reasonField = fields.reason
  if (reasonField !== undefined && typeof reasonField !== 'string') return bad('reason: expected text', checkoutId)
  const reason = (reasonField && !BLANK_ONLY.test(reasonField) ? reasonField : rules.defaultReason)?.trim()
  if (!reason) return bad('reason: missing (give a reason column, or --reason for every row)', checkoutId)
  if (rules.kind === 'void') return {row: {checkoutId, line, reason}}

  const rawAmount = fields.amount
  let amount: Cents | undefined
  if (typeof rawAmount === 'number') {
    amount = centsOf(rawAmount)
    if (amount === undefined || amount <= 0n) return bad(`amount: ${rawAmount} is not an amount greater than 0.00 with at most two decimals`, checkoutId)
  } else if (typeof rawAmount === 'string' && rawAmount.trim() !== '') {
    try {
      amount = parsePositiveAmount(rawAmount, 'amount')
    } catch (error) {
      if (!(error instanceof MoneyError)) throw error
      return bad(error.message, checkoutId)
    }
  } else if (rawAmount !== undefined && rawAmount !== null && rawAmount !== '') return bad('amount: expected a decimal amount such as 50.00', checkoutId)

  const rawCurrency = fields.currency
  let currency: string | undefined
  if (typeof rawCurrency === 'string' && rawCurrency.trim() !== '') {
    currency = rawCurrency.trim().toUpperCase()
    if (!CURRENCY.test(currency)) return bad(`currency: ${JSON.stringify(rawCurrency.slice(0, 20))} is not a three-letter currency code`, checkoutId)
    if (amount === undefined) return bad('currency: given without an amount (a full refund is in the checkout\'s own currency)', checkoutId)
  } else if (rawCurrency !== undefined && rawCurrency !== null && rawCurrency !== '') return bad('currency: expected a three-letter code such as PHP', checkoutId)

  return {row: {checkoutId, line, reason, ...(amount === undefined ? {} : {amount}), ...(currency ? {currency} : {})}}
}

/**
 * The rows of the input, each checked (format, amount, currency, reason, the same checkout twice).
 * @yields each row, or why it is refused
 */
export async function* parseRows(records: AsyncIterable<InputRecord>, rules: RowRules): AsyncGenerator<ParsedRow> {
  const seen = new Map<string, number>()
  for await (const record of records) {
    const {line} = record
    let parsed: ParsedRow = 'problem' in record ? {bad: {code: 'invalid-row', line, message: record.problem}} : checkFields(line, record.fields, rules)
    if ('row' in parsed) {
      const first = seen.get(parsed.row.checkoutId)
      if (first !== undefined) {
        parsed = {bad: {checkoutId: parsed.row.checkoutId, code: 'duplicate-row', line, message: `checkout ${parsed.row.checkoutId} is also on line ${first}; a checkout appears once in a file`}}
      } else seen.set(parsed.row.checkoutId, line)
    }

    yield parsed
  }
}

/** The row as the journal's fingerprint of the input sees it. */
export function rowKey(kind: BulkKind, row: InputRow): string {
  return JSON.stringify([kind, row.checkoutId, row.amount === undefined ? null : formatCents(row.amount), row.currency ?? null, row.reason])
}
