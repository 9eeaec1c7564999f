/**
 * Tables like gh's, rendered by cli-table3 without boxes, rules or padding: two spaces between
 * columns. Rows come in pages; the first page fixes the column widths (fitted to the terminal),
 * and each page is one small cli-table3 table with those widths, so time stays linear in rows
 * (cli-table3 lays out a whole table at once, quadratically in its rows). Pages of plain cells
 * skip cli-table3's measuring (`plainLines`), to the same text.
 */
import type CliTable3 from 'cli-table3'

const GAP = 2
const CHARS = {
  bottom: '',
  'bottom-left': '',
  'bottom-mid': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  middle: ' '.repeat(GAP),
  right: '',
  'right-mid': '',
  top: '',
  'top-left': '',
  'top-mid': '',
  'top-right': '',
}
const STYLE = {border: [], compact: true, head: [], 'padding-left': 0, 'padding-right': 0}

type TableClass = typeof CliTable3

let loaded: TableClass | undefined
async function tableClass(): Promise<TableClass> {
  loaded ??= (await import('cli-table3')).default
  return loaded
}

export interface Fit {
  /** Terminal width in columns. */
  width: number
  /** Shorten cells (with …) so lines fit; off: keep widths from the first page and wrap longer cells. */
  truncate: boolean
  /** Columns shortened first. */
  freeText?: readonly string[]
}

/**
 * Column widths within `fit.width`, from the widest value of each column (`values`): the widest
 * free-text column gives way first, then headers longer than their values, then the widest of
 * any column, never below what `…` needs.
 */
export function fitWidths(columns: readonly string[], values: number[], fit: Fit): number[] {
  const widths = columns.map((c, i) => Math.max(c.length, values[i], 1))
  if (!fit.truncate) return widths
  const free = new Set(fit.freeText ?? [])
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1)
  const passes: [(i: number) => number][] = [
    [(i) => (free.has(columns[i]) ? 8 : widths[i])],
    [(i) => Math.max(values[i], 4)],
    [() => 6],
    [() => 1],
  ]
  for (const [floor] of passes) {
    while (total() > fit.width) {
      let widest = -1
      for (let i = 0; i < widths.length; i++) if (widths[i] > floor(i) && (widest < 0 || widths[i] > widths[widest])) widest = i
      if (widest < 0) break
      widths[widest]--
    }
  }

  return widths
}

const trimLines = (text: string) => text.replaceAll(/ +$/gm, '')

/** Printable ASCII: one terminal column per character, nothing for a terminal to interpret. */
const PLAIN = /^[\u0020-\u007E]*$/

/**
 * The lines cli-table3 draws for rows of plain cells that each fit on one line (truncated cells
 * end in `…`), without its per-cell cost: it measures every cell several times with string-width,
 * ~0.05 ms a cell, 10 s for 20,000 events. Undefined when any cell needs cli-table3 (wide or
 * control characters, a cell to wrap): then cli-table3 draws the page. test/unit/table-page.test.ts
 * checks that both give the same text.
 */
export function plainLines(rows: readonly string[][], widths: readonly number[], truncate: boolean): string | undefined {
  const gap = ' '.repeat(GAP)
  const lines: string[] = []
  for (const row of rows) {
    const cells: string[] = []
    for (const [i, width] of widths.entries()) {
      const cell = row[i] ?? ''
      // Without truncation cli-table3 wraps cells, and its wrapping drops a leading space.
      if (!PLAIN.test(cell) || (!truncate && (cell.length > width || cell.startsWith(' ')))) return undefined
      cells.push(cell.length > width ? cell.slice(0, width - 1) + '…' : cell.padEnd(width))
    }

    lines.push(cells.join(gap).trimEnd())
  }

  return lines.join('\n')
}

/** The same page drawn by cli-table3 (the header with it when `head` is given). */
export async function tableLines(rows: readonly string[][], widths: readonly number[], truncate: boolean, head?: readonly string[]): Promise<string> {
  const Table = await tableClass()
  const table = new Table({
    chars: CHARS,
    colWidths: [...widths],
    style: STYLE,
    truncate: '…',
    wordWrap: !truncate,
    wrapOnWordBoundary: false,
    ...(head ? {head: [...head]} : {}),
  })
  table.push(...rows.map((r) => [...r]))
  return trimLines(table.toString())
}

/** An aligned table for a terminal, written page by page. */
export class TableStream {
  private widths: number[] | undefined

  constructor(
    private readonly columns: readonly string[],
    private readonly fit: Fit,
    private readonly write: (text: string) => void,
    private readonly headers = true,
  ) {}

  async page(rows: string[][]): Promise<void> {
    if (rows.length === 0) return
    const head = !this.widths && this.headers
    if (!this.widths) {
      const values = this.columns.map((_, i) => Math.max(0, ...rows.map((r) => r[i].length)))
      this.widths = fitWidths(this.columns, values, this.fit)
    }

    const all = head ? [[...this.columns], ...rows] : rows
    const text = plainLines(all, this.widths, this.fit.truncate) ?? (await tableLines(rows, this.widths, this.fit.truncate, head ? this.columns : undefined))
    this.write(text + '\n')
  }
}

/** One record as `key  value` lines; long values wrap within the terminal rather than being cut. */
export async function keyValueTable(pairs: [string, string][], width: number): Promise<string> {
  const Table = await tableClass()
  const keyWidth = Math.max(1, ...pairs.map(([k]) => k.length))
  const valueWidth = Math.max(10, width - keyWidth - GAP)
  const table = new Table({chars: CHARS, colWidths: [keyWidth, valueWidth], style: STYLE, wordWrap: true, wrapOnWordBoundary: false})
  table.push(...pairs)
  return trimLines(table.toString())
}
