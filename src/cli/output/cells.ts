/**
 * One value as the text of a table or CSV cell: times in the chosen zone, arrays as lists, and
 * control characters escaped (src/control-chars.ts): a service's strings reach a terminal here.
 */
import {escapeControlChars} from '../../control-chars.js'
import {getPath} from '../../services/dot-path.js'
import {isIsoInstant, localTime, type TimeStyle} from './times.js'

export interface CellStyle {
  style: TimeStyle
  /** IANA zone for times; undefined: UTC. */
  zone?: string
}

export function cellText(value: unknown, cell: CellStyle): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return isIsoInstant(value) ? localTime(value, cell.zone, cell.style) : escapeControlChars(value)
  // In CSV a list is `a;b` rather than JSON with doubled quotes; in a table it reads `a, b`.
  if (Array.isArray(value)) return value.map((v) => cellText(v, cell)).join(cell.style === 'csv' ? ';' : ', ')
  // JSON escapes C0 controls itself, not DEL, C1 or bidi controls.
  if (typeof value === 'object') return escapeControlChars(JSON.stringify(value))
  return String(value)
}

const FORMULA_START = /^[=+\-@\t\r]/
const NUMBER = /^-\d+(\.\d+)?(e[+-]?\d+)?$/i

/**
 * A CSV cell a spreadsheet cannot run (the OWASP rule): one that begins with `=`, `+`, `-` (unless
 * it is a number), `@`, tab or carriage return gets a leading `'`. csv-stringify's
 * `escape_formulas` would quote `-5.00` too: our cells are all strings by then.
 */
export function spreadsheetSafe(cell: string): string {
  return FORMULA_START.test(cell) && !NUMBER.test(cell) ? `'${cell}` : cell
}

/** A column name or a record's key as a header: a service's keys are its text too. */
export function headerText(name: string): string {
  return escapeControlChars(name)
}

export function rowCells(row: Record<string, unknown>, columns: readonly string[], cell: CellStyle): string[] {
  return columns.map((c) => cellText(getPath(row, c), cell))
}
