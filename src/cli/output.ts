/**
 * The one way data reaches stdout: a command's JSON document, rendered under its view
 * (./output/view.ts). `json` is the document; `ndjson` one element of its list per line; `table`
 * an aligned table in a terminal and tab-separated lines with a header in a pipe (like gh);
 * `csv` comma-separated. Terminal tables (./output/table.ts, with string-width) and CSV (csv-stringify)
 * load only when asked for.
 */
import type {Dropped, TableStream} from './output/table.js'

import {wrapWords} from '../errors.js'
import {maskSecret} from '../http/redact.js'
import {type CellStyle, cellText, headerText, rowCells, spreadsheetSafe} from './output/cells.js'
import {shortTableTime} from './output/times.js'
import {layoutOf, listOf, type Row, type View} from './output/view.js'

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const
export type Format = (typeof FORMATS)[number]

export interface OutputMode {
  format: Format
  /** stdout is a terminal: `table` is aligned (else tab-separated). */
  terminal: boolean
  /** Terminal width in columns. */
  width: number
  /** Shorten cells to fit the width (`--no-truncate` turns it off). */
  truncate: boolean
  /** Zone of times in tables and CSV; undefined: UTC. */
  zone?: string
  /** `--columns` */
  columns?: string[]
  /** Header rows in tables, TSV and CSV; `--no-headers` turns them off. */
  headers?: boolean
}

export interface Sinks {
  out: (text: string) => void
  err: (text: string) => void
}

const PAGE = 100

const processSinks: Sinks = {
  err: (text) => process.stderr.write(text),
  out: (text) => process.stdout.write(text),
}

function columnsOf(rows: Row[], chosen?: readonly string[]): string[] {
  if (chosen && chosen.length > 0) return [...chosen]
  const seen = new Set<string>()
  for (const row of rows.slice(0, 50)) for (const key of Object.keys(row)) seen.add(key)
  return [...seen]
}

/** CSV (`,`) is what spreadsheets open: its cells are made formula-safe; TSV is for scripts and keeps exact values (docs/output.md). */
async function separated(records: string[][], delimiter: string): Promise<string> {
  const {stringify} = await import('csv-stringify/sync')
  return stringify(delimiter === ',' ? records.map((r) => r.map((c) => spreadsheetSafe(c))) : records, {delimiter})
}

/**
 * Writes a list as it arrives (`events list --all`), a page at a time (`endPage()`, or every 100
 * rows) in every format, so memory stays flat and time linear.
 */
export class ListWriter {
  private count = 0
  private pending: Row[] = []
  /** ndjson lines not yet written: one write a page, not one a row (each write to a pipe is a system call). */
  private lines: string[] = []
  private columns: string[] | undefined
  private table: TableStream | undefined
  private headerWritten = false

  constructor(
    private readonly mode: OutputMode,
    private readonly view: Pick<View, 'columns' | 'freeText' | 'layout'> = {},
    private readonly sinks: Sinks = processSinks,
  ) {
    const chosen = mode.columns && mode.columns.length > 0 ? mode.columns : view.columns
    this.columns = chosen && chosen.length > 0 ? [...chosen] : undefined
  }

  get written(): number {
    return this.count
  }

  async push(row: Row): Promise<void> {
    this.count++
    if (this.mode.format === 'ndjson') {
      this.lines.push(JSON.stringify(row))
      if (this.lines.length >= PAGE) this.flushLines()
      return
    }

    this.pending.push(row)
    if (this.pending.length >= PAGE) await this.endPage()
  }

  /** A page of the listing has arrived: write what is pending. */
  async endPage(): Promise<void> {
    this.flushLines()
    if (this.pending.length === 0) return
    const rows = this.pending
    this.pending = []
    this.columns ??= columnsOf(rows)
    const cells = rows.map((r) => rowCells(r, this.columns!, this.cellStyle))
    await this.writeCells(cells, !this.headerWritten && this.mode.headers !== false)
    this.headerWritten = true
  }

  /** An empty list is its header alone, in every tabular format; a terminal also says (none) on stderr. */
  async end(): Promise<void> {
    await this.endPage()
    if (this.count > 0) return
    if (this.columns && this.mode.headers !== false && this.mode.format !== 'ndjson') {
      if (this.mode.format === 'table' && this.mode.terminal) {
        // fitted like any table: no rows, so the widths are the headers'
        ;(await this.terminalTable()).headerOnly()
      } else {
        const delimiter = this.mode.format === 'csv' ? ',' : '\t'
        this.sinks.out(await separated([this.columns.map((c) => headerText(c))], delimiter))
      }
    }

    if (this.mode.format === 'table' && this.mode.terminal) this.sinks.err('(none)\n')
  }

  private flushLines(): void {
    if (this.lines.length === 0) return
    this.sinks.out(this.lines.join('\n') + '\n')
    this.lines = []
  }

  private get cellStyle(): CellStyle {
    return {style: this.mode.format === 'table' && this.mode.terminal ? 'table' : 'csv', zone: this.mode.zone}
  }

  private async writeCells(cells: string[][], withHeader: boolean): Promise<void> {
    const columns = this.columns!.map((c) => headerText(c))
    if (this.mode.format === 'csv' || !this.mode.terminal) {
      const delimiter = this.mode.format === 'csv' ? ',' : '\t'
      this.sinks.out(await separated(withHeader ? [columns, ...cells] : cells, delimiter))
      return
    }

    ;(await this.terminalTable()).page(cells)
  }

  private async terminalTable(): Promise<TableStream> {
    if (this.table) return this.table
    const chosen = Boolean(this.mode.columns && this.mode.columns.length > 0)
    const fit = {chosen, layout: layoutOf(this.view), shortTime: shortTableTime, truncate: this.mode.truncate, width: this.mode.width}
    const {TableStream} = await import('./output/table.js')
    this.table = new TableStream(this.columns!, this.columns!.map((c) => headerText(c)), fit, this.sinks.out, this.mode.headers !== false, (dropped) =>
      this.sinks.err(droppedNote(dropped, this.mode.width)),
    )
    return this.table
  }
}

/**
 * The stderr note under a table that left columns out, within `width` (broken between words when a
 * line would be wider): the columns that read the same on every row, named once with their value;
 * how many others, and the `--columns` that shows them (the ids first, to tell the rows apart).
 */
export function droppedNote({constant, dropped, see}: Dropped, width: number): string {
  const lines: string[] = []
  if (constant.length > 0) lines.push(`Left out, the same on every row: ${constant.map(([name, value]) => `${name} = ${value === '' ? '(empty)' : value}`).join(', ')}`)
  const others = dropped.length - constant.length
  if (others > 0 && see) {
    const rest = see.complete ? '' : ' (every column: --no-truncate)'
    lines.push(`Left out ${others} column${others === 1 ? '' : 's'} to fit ${width}: see ${others === 1 ? 'it' : 'them'} with --columns ${see.columns.join(',')}${rest}`)
  }

  return lines.flatMap((line) => wrapWords(line, width, '  ')).join('\n') + '\n'
}

/** Renders a whole document under its view (the document after `--query` has no view: `{}`). */
export async function renderDocument(document: unknown, view: View, mode: OutputMode, sinks: Sinks = processSinks): Promise<void> {
  if (mode.format === 'json') {
    sinks.out(JSON.stringify(document ?? null, null, 2) + '\n')
    return
  }

  if (mode.format === 'ndjson') {
    for (const item of listOf(document, view) ?? [document]) sinks.out(JSON.stringify(item ?? null) + '\n')
    return
  }

  const raw = rawRows(document)
  if (raw) {
    await writeRaw(raw, mode, sinks)
    return
  }

  const list = listOf(document, view)

  if (list && !view.withFields) {
    await writeList(list, view, mode, sinks)
    return
  }

  if (document === null || typeof document !== 'object') {
    if (document !== undefined && document !== null) sinks.out(cellText(document, {style: 'csv'}) + '\n')
    return
  }

  const record = maskedFields(document as Row, view.masked)
  const omit = view.withFields && view.list ? view.list : undefined
  const chosen = mode.columns && mode.columns.length > 0 ? mode.columns : view.columns
  const keys = chosen && chosen.length > 0 ? [...chosen] : Object.keys(record).filter((k) => k !== omit)
  await writeRecord(record, keys, mode, sinks)
  if (list) {
    // In a terminal the second table says what it is (the first is the record itself).
    sinks.out(mode.format === 'table' && mode.terminal ? `\n${headerText(omit ?? 'list')} (${list.length}):\n` : '\n')
    await writeList(list, {}, {...mode, columns: undefined}, sinks)
  }
}

/** The record with `masked` fields masked, for a table, TSV or CSV. */
function maskedFields(record: Row, masked: readonly string[] | undefined): Row {
  if (!masked?.some((k) => typeof record[k] === 'string')) return record
  const copy = {...record}
  for (const k of masked) if (typeof copy[k] === 'string') copy[k] = maskSecret(copy[k])
  return copy
}

type Scalar = boolean | null | number | string

function isScalar(value: unknown): value is Scalar {
  return value === null || ['boolean', 'number', 'string'].includes(typeof value)
}

/**
 * A list of plain values (`--query 'events[].id'`), or of lists of them (`--query 'events[].[id,date]'`),
 * as rows of cells: such a list has no field names, so it prints as values, one row a line, with no
 * header (like `aws --output text`). Undefined for anything else.
 */
function rawRows(document: unknown): Scalar[][] | undefined {
  if (!Array.isArray(document) || document.length === 0) return undefined
  if (document.every((v) => isScalar(v))) return document.map((v) => [v])
  if (document.every((v) => Array.isArray(v) && v.every((c) => isScalar(c)))) return document as Scalar[][]
  return undefined
}

async function writeRaw(rows: Scalar[][], mode: OutputMode, sinks: Sinks): Promise<void> {
  const cells = rows.map((r) => r.map((v) => cellText(v, {style: 'csv', zone: mode.zone})))
  if (mode.format === 'csv') {
    sinks.out(await separated(cells, ','))
    return
  }

  // One value a line as it is; several a line separated by tabs, a terminal's table aligned.
  if (mode.terminal && cells.some((r) => r.length > 1)) {
    const {TableStream} = await import('./output/table.js')
    const names = cells[0].map(() => '')
    new TableStream(names, names, {chosen: true, truncate: mode.truncate, width: mode.width}, sinks.out, false).page(cells)
    return
  }

  sinks.out(cells.map((r) => r.join('\t')).join('\n') + '\n')
}

async function writeList(list: Row[], view: View, mode: OutputMode, sinks: Sinks): Promise<void> {
  const writer = new ListWriter(mode, view, sinks)
  for (const row of list) await writer.push(row)
  await writer.end()
}

async function writeRecord(record: Row, keys: string[], mode: OutputMode, sinks: Sinks): Promise<void> {
  const terminalTable = mode.format === 'table' && mode.terminal
  const values = rowCells(record, keys, {style: terminalTable ? 'table' : 'csv', zone: mode.zone})
  if (mode.format === 'csv') {
    sinks.out(await separated([keys.map((k) => headerText(k)), values], ','))
    return
  }

  const pairs = keys.map((k, i): [string, string] => [headerText(k), values[i]])
  if (terminalTable) {
    const {keyValueTable} = await import('./output/table.js')
    sinks.out(keyValueTable(pairs, mode.width) + '\n')
    return
  }

  sinks.out(await separated(pairs, '\t'))
}
