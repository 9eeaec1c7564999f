import type {Line} from './lines.js'

/**
 * The rows of a bulk void or refund file, checked locally one by one as they are read:
 * - CSV with a header naming its columns (`checkoutId,amount,currency,reason`, in any order;
 *   RFC 4180 quoting, each record on one line);
 * - JSON lines with the same fields (`{"checkoutId": "...", "amount": "50.00", ...}`);
 * - for voids, also one checkout id per line.
 * A malformed row is refused with its line and why, and the others go on; a file that cannot be
 * one of these (no checkoutId column, an unknown column) is refused whole (exit 2, nothing sent).
 */
import {UsageError} from '../../errors.js'
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

const COLUMNS = ['checkoutId', 'amount', 'currency', 'reason'] as const
type Column = (typeof COLUMNS)[number]
const BLANK_ONLY = /^[\p{Z}\p{Cc}\p{Cf}]*$/u
const CURRENCY = /^[A-Z]{3}$/

/** One CSV record of one line (RFC 4180): the fields, or why it is not one. */
export function splitCsvLine(text: string): string[] | {problem: string} {
  const fields: string[] = []
  let i = 0
  for (;;) {
    if (text[i] === '"') {
      let value = ''
      i++
      for (;;) {
        const close = text.indexOf('"', i)
        if (close === -1) return {problem: 'a quoted field is not closed on its line'}
        value += text.slice(i, close)
        if (text[close + 1] === '"') {
          value += '"'
          i = close + 2
          continue
        }

        i = close + 1
        break
      }

      fields.push(value)
      if (i === text.length) return fields
      if (text[i] !== ',') return {problem: 'a quoted field is followed by text before the next comma'}
      i++
      continue
    }

    const comma = text.indexOf(',', i)
    const value = comma === -1 ? text.slice(i) : text.slice(i, comma)
    if (value.includes('"')) return {problem: 'a quote inside an unquoted field (quote the whole field, and double the quotes inside)'}
    fields.push(value)
    if (comma === -1) return fields
    i = comma + 1
  }
}

/** The columns a header names, in its order; refused whole when it cannot be read. */
function headerColumns(text: string, source: string, kind: BulkKind): Column[] {
  const fields = splitCsvLine(text)
  if (!Array.isArray(fields)) throw new UsageError(`${source}: line 1 (the header): ${fields.problem}; nothing was sent`)
  const columns: Column[] = []
  for (const field of fields) {
    const name = COLUMNS.find((c) => c.toLowerCase() === field.trim().toLowerCase())
    if (!name) {
      throw new UsageError(
        `${source}: unknown column ${JSON.stringify(field.slice(0, 40))} in the header; the columns are ${COLUMNS.join(', ')}; nothing was sent`,
      )
    }

    if (columns.includes(name)) throw new UsageError(`${source}: column ${name} appears twice in the header; nothing was sent`)
    columns.push(name)
  }

  if (!columns.includes('checkoutId')) {
    const example = kind === 'refund' ? 'checkoutId,amount,currency,reason' : 'checkoutId,reason (or one checkout id per line)'
    throw new UsageError(`${source}: the header has no checkoutId column (expected ${example}); nothing was sent`)
  }

  return columns
}

type Fields = Partial<Record<Column, unknown>>

function fromJson(text: string): {fields: Fields} | {problem: string} {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return {problem: 'not valid JSON'}
  }

  if (!value || typeof value !== 'object' || Array.isArray(value)) return {problem: 'expected a JSON object'}
  const fields: Fields = Object.create(null)
  for (const [key, v] of Object.entries(value)) {
    if (!(COLUMNS as readonly string[]).includes(key)) return {problem: `unknown field ${JSON.stringify(key.slice(0, 40))} (the fields are ${COLUMNS.join(', ')})`}
    fields[key as Column] = v
  }

  return {fields}
}

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
 * The first non-blank line decides the format: `{` JSON lines, a line naming checkoutId a CSV
 * header, otherwise (voids only) one checkout id per line.
 * @yields each row, or why it is refused
 */
export async function* parseRows(lines: AsyncIterable<Line>, source: string, rules: RowRules): AsyncGenerator<ParsedRow> {
  let format: 'csv' | 'ids' | 'json' | undefined
  let columns: Column[] = []
  const seen = new Map<string, number>()
  for await (const {number, text} of lines) {
    if (text.trim() === '') continue
    if (format === undefined) {
      if (text.trimStart().startsWith('{')) format = 'json'
      else if (/(^|,)\s*"?checkoutid"?\s*(,|$)/i.test(text)) {
        format = 'csv'
        columns = headerColumns(text, source, rules.kind)
        continue
      } else if (rules.kind === 'void') format = 'ids'
      else throw new UsageError(`${source}: line 1 is not a CSV header naming checkoutId,amount,currency,reason, nor a JSON object; nothing was sent`)
    }

    let parsed: ParsedRow
    if (format === 'json') {
      const read = fromJson(text)
      parsed = 'problem' in read ? {bad: {code: 'invalid-row', line: number, message: read.problem}} : checkFields(number, read.fields, rules)
    } else if (format === 'csv') {
      const values = splitCsvLine(text)
      if (!Array.isArray(values)) parsed = {bad: {code: 'invalid-row', line: number, message: values.problem}}
      else if (values.length !== columns.length) {
        parsed = {bad: {code: 'invalid-row', line: number, message: `${values.length} fields where the header names ${columns.length}`}}
      } else {
        const fields: Fields = Object.create(null)
        for (const [i, column] of columns.entries()) fields[column] = values[i]
        parsed = checkFields(number, fields, rules)
      }
    } else parsed = checkFields(number, {checkoutId: text}, rules)

    if ('row' in parsed) {
      const first = seen.get(parsed.row.checkoutId)
      if (first !== undefined) {
        parsed = {bad: {checkoutId: parsed.row.checkoutId, code: 'duplicate-row', line: number, message: `checkout ${parsed.row.checkoutId} is also on line ${first}; a checkout appears once in a file`}}
      } else seen.set(parsed.row.checkoutId, number)
    }

    yield parsed
  }
}

/** The row as the journal's fingerprint of the input sees it. */
export function rowKey(kind: BulkKind, row: InputRow): string {
  return JSON.stringify([kind, row.checkoutId, row.amount === undefined ? null : formatCents(row.amount), row.currency ?? null, row.reason])
}
