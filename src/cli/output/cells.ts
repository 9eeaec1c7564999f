/** One value as the text of a table or CSV cell: times in the chosen zone, arrays as lists. */
import {getPath} from '../../services/dot-path.js'
import {isIsoInstant, localTime, type TimeStyle} from './times.js'

export interface CellStyle {
  style: TimeStyle
  /** IANA zone for times; undefined: UTC. */
  zone?: string
}

export function cellText(value: unknown, cell: CellStyle): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return isIsoInstant(value) ? localTime(value, cell.zone, cell.style) : value
  // In CSV a list is `a;b` rather than JSON with doubled quotes; in a table it reads `a, b`.
  if (Array.isArray(value)) return value.map((v) => cellText(v, cell)).join(cell.style === 'csv' ? ';' : ', ')
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

export function rowCells(row: Record<string, unknown>, columns: readonly string[], cell: CellStyle): string[] {
  return columns.map((c) => cellText(getPath(row, c), cell))
}
