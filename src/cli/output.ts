/**
 * The one way data reaches stdout. Tables (cli-table3) and CSV (csv-stringify) are imported only
 * when asked for, so JSON output and start-up never pay for them.
 */
import {getPath} from '../services/dot-path.js'

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const
export type Format = (typeof FORMATS)[number]

export interface RenderOptions {
  format: Format
  /** Columns for table/csv (dot paths); default: the keys of the first row. */
  columns?: string[]
}

type Row = Record<string, unknown>

export function cellText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

function columnsOf(rows: Row[], wanted?: string[]): string[] {
  if (wanted && wanted.length > 0) return wanted
  const seen = new Set<string>()
  for (const row of rows.slice(0, 50)) for (const key of Object.keys(row)) seen.add(key)
  return [...seen]
}

function asRows(data: unknown): Row[] | undefined {
  if (Array.isArray(data)) return data.map((d) => (d && typeof d === 'object' ? (d as Row) : {value: d}))
  return undefined
}

/** Renders a whole value. Arrays are rows; a single object is a two-column field/value table in table form. */
export async function render(data: unknown, options: RenderOptions): Promise<string> {
  const rows = asRows(data)
  switch (options.format) {
    case 'json': {
      return JSON.stringify(data, null, 2)
    }

    case 'ndjson': {
      return (rows ?? [data]).map((r) => JSON.stringify(r)).join('\n')
    }

    case 'csv': {
      const list = rows ?? [data as Row]
      return csvLines(list, columnsOf(list, options.columns), true)
    }

    case 'table': {
      if (rows) return table(rows, columnsOf(rows, options.columns))
      if (data && typeof data === 'object') return recordTable(data as Row, options.columns)
      return cellText(data)
    }
  }
}

async function csvLines(rows: Row[], columns: string[], header: boolean): Promise<string> {
  const {stringify} = await import('csv-stringify/sync')
  const records = rows.map((r) => columns.map((c) => cellText(getPath(r, c))))
  return stringify(header ? [columns, ...records] : records).replace(/\n$/, '')
}

async function table(rows: Row[], columns: string[]): Promise<string> {
  if (rows.length === 0) return '(none)'
  const {default: Table} = await import('cli-table3')
  const t = new Table({head: columns, style: {head: [], border: []}})
  for (const r of rows) t.push(columns.map((c) => cellText(getPath(r, c))))
  return t.toString()
}

async function recordTable(record: Row, columns?: string[]): Promise<string> {
  const {default: Table} = await import('cli-table3')
  const t = new Table({style: {head: [], border: []}})
  const keys = columns && columns.length > 0 ? columns : Object.keys(record)
  for (const k of keys) t.push({[k]: cellText(getPath(record, k))})
  return t.toString()
}

/**
 * Writes rows as they arrive (for `--all` listings): ndjson and csv stream with flat memory,
 * json streams one array, table buffers (it needs every row to size its columns).
 */
export class RowWriter {
  private count = 0
  private buffered: Row[] = []
  private columns: string[] | undefined

  constructor(
    private readonly options: RenderOptions,
    private readonly write: (text: string) => void = (t) => process.stdout.write(t),
  ) {
    this.columns = options.columns && options.columns.length > 0 ? options.columns : undefined
  }

  get written(): number {
    return this.count
  }

  async push(row: Row): Promise<void> {
    const first = this.count === 0
    this.count++
    switch (this.options.format) {
      case 'ndjson': {
        this.write(JSON.stringify(row) + '\n')
        break
      }

      case 'json': {
        this.write((first ? '[\n' : ',\n') + JSON.stringify(row, null, 2).replaceAll(/^/gm, '  '))
        break
      }

      case 'csv': {
        this.columns ??= Object.keys(row)
        this.write((await csvLines([row], this.columns, first)) + '\n')
        break
      }

      case 'table': {
        this.buffered.push(row)
        break
      }
    }
  }

  async end(): Promise<void> {
    if (this.options.format === 'json') this.write(this.count === 0 ? '[]\n' : '\n]\n')
    if (this.options.format === 'table') this.write((await table(this.buffered, columnsOf(this.buffered, this.columns))) + '\n')
    if (this.options.format === 'csv' && this.count === 0 && this.columns) this.write((await csvLines([], this.columns, true)) + '\n')
  }
}
