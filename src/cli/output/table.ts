/**
 * Tables like gh's: no boxes or rules, two spaces between columns, fitted to the terminal.
 *
 * Each column says what a person needs from it (declared by the view, ./view.ts `layout`): ids,
 * names, enum values, dates, amounts and statuses stay whole (people copy and compare them), free
 * text and URLs may be cut, headers are never cut. When the columns do not fit at their widest, a
 * column that reads the same on every row is left out first (the note names its value once), then
 * whole columns of the lowest priority: left out and named (`onDropped`), never cut. Spare room
 * goes to the year of times, then to free text, so a wide terminal shows whole cells.
 *
 * Rows come in pages; the first page fixes the layout and every page is written at once, so time
 * stays linear in rows. Every cell goes through one path whatever its characters: widths are
 * display widths (string-width: wide characters count two, combining marks none) and cells are
 * cut between graphemes.
 */
import stringWidth from 'string-width'

const GAP = 2
/** The longest word a reason keeps on one line (a UUID is 36): a longer one is broken between characters. */
const LONGEST_UNBROKEN = 40
const SPACES = ' '.repeat(GAP)

/**
 * How a column gives way when the table is too wide for the terminal: what a person needs from it.
 * - `whole` (the default): ids, names, enum values, dates and times, amounts, statuses. Never cut: a
 *   whole column that does not fit is left out (lowest priority first) and named.
 * - `id`: whole, and the column that tells rows apart: the "Left out" note's `--columns` starts with it.
 * - `text`: free text and URLs. May be cut (with …) to fit.
 * - `reason`: text a person acts on (why a row was refused, why a step failed): never cut, its
 *   cell continues on the next lines, broken between words.
 */
export interface ColumnLayout {
  kind?: 'id' | 'reason' | 'text' | 'whole'
  /**
   * 1 is kept longest; when the table cannot fit, the highest numbers are left out first (a
   * secondary date: drop it first with a high number). Default 2. Before any of them, a column that
   * reads the same on every row is left out and its value named once.
   */
  priority?: number
  /** The narrowest a `text` column may get before it is left out instead (never below its header); the least width of any column, for values of later pages. */
  min?: number
}

export interface Fit {
  /** Terminal width in columns. */
  width: number
  /** Shorten cells (with …) so lines fit; off: keep every column at its widest and wrap longer cells. */
  truncate: boolean
  /** Per column name. */
  layout?: Readonly<Record<string, ColumnLayout>>
  /** The shorter form of a cell that is a time (./times.ts `shortTableTime`), else undefined. */
  shortTime?: (cell: string) => string | undefined
  /** Columns the user chose (`--columns`): left out only when they cannot fit, not to keep free text whole. */
  chosen?: boolean
}

/** Printable ASCII: one column a character, one grapheme a character (the common case, measured at once). */
const PLAIN = /^[\u0020-\u007E]*$/
/**
 * Made on first use: creating a segmenter loads ICU's break rules, 10-14 ms of CPU, and every
 * command that pages (through ./progress.ts) loads this module without showing a table.
 */
let segmenter: Intl.Segmenter | undefined
const graphemes = (text: string) => (segmenter ??= new Intl.Segmenter()).segment(text)

/** Columns a terminal needs to show `text` (control characters are escaped before they get here). */
export function displayWidth(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text)
}

/** The graphemes of `text` that fill at most `width` columns, and the columns they fill. */
function head(text: string, width: number): [string, number] {
  if (PLAIN.test(text)) return [text.slice(0, width), Math.min(width, text.length)]
  let used = 0
  let end = 0
  for (const {index, segment} of graphemes(text)) {
    const w = stringWidth(segment)
    if (used + w > width) return [text.slice(0, index), used]
    used += w
    end = index + segment.length
  }

  return [text.slice(0, end), used]
}

/** `text` in exactly `width` columns: padded, or cut with `…`. */
export function fitCell(text: string, width: number): string {
  const w = displayWidth(text)
  if (w <= width) return text + ' '.repeat(width - w)
  const [kept, used] = head(text, Math.max(0, width - 1))
  return kept + '…' + ' '.repeat(Math.max(0, width - 1 - used))
}

/** `text` as lines of exactly `width` columns (`--no-truncate`). */
export function wrapCell(text: string, width: number): string[] {
  const lines: string[] = []
  let rest = text
  do {
    const [kept, used] = head(rest, Math.max(1, width))
    // A character wider than the column still takes a line of its own.
    const taken = kept.length > 0 ? kept : (graphemes(rest)[Symbol.iterator]().next().value?.segment ?? rest)
    const shown = kept.length > 0 ? used : displayWidth(taken)
    lines.push(taken + ' '.repeat(Math.max(0, width - shown)))
    rest = rest.slice(taken.length)
  } while (rest.length > 0)

  return lines
}

interface Column {
  index: number
  headerWidth: number
  /** `time`: every cell a time (whole with its year or without); `whole` never cut; `text` may be cut (a `reason` wraps instead). */
  kind: 'text' | 'time' | 'whole'
  wraps: boolean
  /** Declared `id`: the note's `--columns` starts with it. */
  id: boolean
  priority: number
  /** Widest cell of the first page, or the header. */
  natural: number
  /** Widest with times shortened. */
  short: number
  min: number
  width: number
  /** Times shown without the year. */
  shortTimes: boolean
  /** The one value of every row of the first page (two rows or more), else undefined. */
  constant?: string
}

export interface Layout {
  /** The columns shown, in their order, with their widths; `wraps`: a longer cell continues on the next lines. */
  shown: {index: number; shortTimes: boolean; width: number; wraps?: boolean}[]
  /** Indexes of the columns left out. */
  dropped: number[]
  /** Of `dropped`, the columns left out because every row has one value: index and value. */
  constant?: {index: number; value: string}[]
  /** Columns whose `--columns` shows the ones left out (the ids first) within the width; every one of `dropped` when `complete`. */
  see?: {columns: number[]; complete: boolean}
}

const total = (widths: number[]) => (widths.length === 0 ? 0 : widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1))
const byPriority = (a: Column, b: Column) => a.priority - b.priority || a.index - b.index

function measure(names: readonly string[], headers: readonly string[], rows: readonly string[][], fit: Fit): Column[] {
  return names.map((name, index) => {
    const declared = fit.layout?.[name] ?? {}
    const headerWidth = displayWidth(headers[index])
    let natural = headerWidth
    let short = headerWidth
    let times = 0
    let others = 0
    let longestWord = 0
    let constant: string | undefined = rows.length > 1 ? (rows[0][index] ?? '') : undefined
    for (const row of rows) {
      const cell = row[index] ?? ''
      if (constant !== undefined && cell !== constant) constant = undefined
      const w = displayWidth(cell)
      if (w > natural) natural = w
      if (declared.kind === 'reason' && w > longestWord) for (const word of cell.split(' ')) longestWord = Math.max(longestWord, displayWidth(word))
      if (cell === '') continue
      const shorter = fit.shortTime?.(cell)
      if (shorter !== undefined) {
        times++
        short = Math.max(short, displayWidth(shorter))
      } else {
        others++
        short = Math.max(short, w)
      }
    }

    // A declared width holds for values of later pages too (a listener's rows come one at a time).
    if (declared.min) {
      short = Math.max(short, declared.min)
      natural = Math.max(natural, declared.min)
    }

    const kind = times > 0 && others === 0 ? 'time' : declared.kind === 'text' || declared.kind === 'reason' ? 'text' : 'whole'
    if (kind !== 'time') short = natural
    const wraps = declared.kind === 'reason'
    // A reason wraps between words, so its narrowest is its longest word: an id or a request id in it stays whole on one line.
    const narrowest = wraps ? Math.min(longestWord, LONGEST_UNBROKEN) : 10
    const min = kind === 'text' ? Math.max(headerWidth, Math.min(natural, Math.max(declared.min ?? 10, narrowest))) : short
    return {constant, headerWidth, id: declared.kind === 'id', index, kind, min, natural, priority: declared.priority ?? 2, short, shortTimes: false, width: natural, wraps}
  })
}

/**
 * The layout of a table of `names` (headers `headers`) whose first page is `rows`: every column at
 * its widest when that fits; else columns that read the same on every row go first, then whole
 * columns of the lowest priority, and free text is cut last.
 * Deterministic in its input; linear in cells.
 */
export function layoutTable(names: readonly string[], headers: readonly string[], rows: readonly string[][], fit: Fit): Layout {
  const columns = measure(names, headers, rows, fit)
  if (!fit.truncate || total(columns.map((c) => c.natural)) <= fit.width) {
    return {dropped: [], shown: columns.map((c) => ({index: c.index, shortTimes: false, width: c.natural}))}
  }

  // The same on every row: said once in the note, not on every line.
  // Ids and free text are what rows are told apart and read by: they stay in the table.
  const constant = fit.chosen ? [] : columns.filter((c) => c.constant !== undefined && c.kind !== 'text' && !c.id && c.natural <= fit.width / 4)
  const candidates = constant.length < columns.length ? columns.filter((c) => !constant.includes(c)) : columns
  // Which columns: by priority (then their order), each one that still fits at its narrowest.
  const kept = new Set<Column>()
  let used = -GAP
  for (const c of [...candidates].sort(byPriority)) {
    if (kept.size > 0 && used + GAP + c.min > fit.width) continue
    kept.add(c)
    used += GAP + c.min
  }

  let shown = columns.filter((c) => kept.has(c))

  size(shown, fit.width)
  // A cell cut while a column of lower priority is shown: that column is left out instead.
  while (!fit.chosen) {
    // Only cells that fit in half the terminal: a long message is cut anyway, and leaves the other columns be.
    const cut = shown.filter((c) => c.kind === 'text' && c.width < c.natural && c.natural <= fit.width / 2)
    const before = Math.min(...cut.map((c) => c.priority))
    const out = shown.findLast((c) => c.priority > before && c.priority === Math.max(...shown.map((s) => s.priority)))
    if (cut.length === 0 || !out) break
    shown = shown.filter((c) => c !== out)
    size(shown, fit.width)
  }

  // Room left: a column left out comes back when it costs no other column a character.
  for (const c of fit.chosen ? [] : [...candidates.sort(byPriority), ...constant]) {
    if (shown.includes(c)) continue
    // Compared without the rest the last column takes: that is room, not a need.
    size(shown, fit.width, false)
    const before = new Map(shown.map((s) => [s, s.width]))
    const trial = columns.filter((s) => s === c || shown.includes(s))
    size(trial, fit.width, false)
    if (total(trial.map((s) => s.min)) <= fit.width && shown.every((s) => s.width >= before.get(s)!)) shown = trial
    size(shown, fit.width)
  }

  const left = columns.filter((c) => !shown.includes(c))
  const same = left.filter((c) => constant.includes(c))
  return {
    constant: same.map((c) => ({index: c.index, value: c.constant!})),
    dropped: left.map((c) => c.index),
    see: seeing(shown, left.filter((c) => !same.includes(c)), fit.width),
    shown: shown.map((c) => ({index: c.index, shortTimes: c.shortTimes, width: c.width, ...(c.wraps && c.width < c.natural ? {wraps: true} : {})})),
  }
}

/** The columns a `--columns` names to show what was left out: the ids shown, then as many of `left` as fit whole. */
function seeing(shown: Column[], left: Column[], width: number): {columns: number[]; complete: boolean} {
  const ids = shown.some((c) => c.id) ? shown.filter((c) => c.id) : shown.slice(0, 1)
  const chosen = [...ids]
  for (const c of [...left].sort(byPriority)) {
    if (total([...chosen, c].map((s) => s.min)) <= width) chosen.push(c)
  }

  const columns = [...ids.map((c) => c.index), ...chosen.filter((c) => !ids.includes(c)).map((c) => c.index).sort((a, b) => a - b)]
  return {columns, complete: left.every((c) => chosen.includes(c))}
}

function renderRow(row: readonly string[], layout: Layout, fit: Pick<Fit, 'shortTime' | 'truncate'>): string {
  const {truncate} = fit
  if (truncate && layout.shown.some((c) => c.wraps && displayWidth(row[c.index] ?? '') > c.width)) {
    const cells = layout.shown.map((c) => (c.wraps ? wrapWordsCell(row[c.index] ?? '', c.width) : [fitCell(c.shortTimes ? (fit.shortTime?.(row[c.index] ?? '') ?? row[c.index] ?? '') : (row[c.index] ?? ''), c.width)]))
    return stack(cells, layout)
  }

  if (truncate) {
    let line = ''
    for (const [i, c] of layout.shown.entries()) {
      let cell = row[c.index] ?? ''
      if (c.shortTimes) cell = fit.shortTime?.(cell) ?? cell
      line += (i === 0 ? '' : SPACES) + fitCell(cell, c.width)
    }

    return line.trimEnd()
  }

  return stack(
    layout.shown.map((c) => wrapCell(row[c.index] ?? '', c.width)),
    layout,
  )
}

/** Cells of one row, each as lines, side by side. */
function stack(cells: string[][], layout: Layout): string {
  const height = Math.max(...cells.map((lines) => lines.length))
  const lines: string[] = []
  for (let l = 0; l < height; l++) lines.push(cells.map((lines, i) => lines[l] ?? ' '.repeat(layout.shown[i].width)).join(SPACES).trimEnd())
  return lines.join('\n')
}

/** `text` as lines of exactly `width` columns, broken between words (a word wider than the column between characters). */
function wrapWordsCell(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    const joined = line === '' ? word : `${line} ${word}`
    if (displayWidth(joined) <= width) {
      line = joined
      continue
    }

    if (line !== '') lines.push(line)
    if (displayWidth(word) <= width) {
      line = word
      continue
    }

    const pieces = wrapCell(word, width).map((p) => p.trimEnd())
    lines.push(...pieces.slice(0, -1))
    line = pieces.at(-1)!
  }

  lines.push(line)
  return lines.map((l) => fitCell(l, width))
}

/** Widths of the `shown` columns within `width`: each at its narrowest, then the spare room shared out. */
function size(shown: Column[], width: number, lastTakesRest = true): void {
  for (const c of shown) c.width = c.min
  // Only when a lone column is wider than the terminal: free text to its header, then the widest cut.
  let over = total(shown.map((c) => c.width)) - width
  if (over > 0) for (const c of shown) if (c.kind === 'text') c.width = Math.min(c.width, c.headerWidth)
  over = total(shown.map((c) => c.width)) - width
  for (const c of [...shown].sort((a, b) => b.width - a.width)) {
    if (over <= 0) break
    const by = Math.min(over, c.width - 1)
    c.width -= by
    over -= by
  }

  let spare = width - total(shown.map((c) => c.width))
  const grow = (c: Column, to: number) => {
    const by = Math.max(0, Math.min(spare, to - c.width))
    c.width += by
    spare -= by
  }

  // Room goes to the year of times first, then to free text.
  // A time is whole either way: with its year or without, nothing between.
  for (const c of shown) if (c.kind === 'time' && spare >= c.natural - c.width) grow(c, c.natural)
  const texts = shown.filter((c) => c.kind === 'text')
  // Free text shares what is left, the narrowest satisfied first.
  let budget = spare + texts.reduce((sum, c) => sum + c.width, 0)
  for (const [i, c] of [...texts].sort((a, b) => a.natural - b.natural).entries()) {
    const share = Math.max(c.width, Math.min(c.natural, Math.floor(budget / (texts.length - i))))
    grow(c, share)
    budget -= c.width
  }

  for (const c of texts) grow(c, c.natural)
  // The last column may take the rest: trailing spaces are trimmed, and a later page may be longer.
  const last = shown.at(-1)
  if (lastTakesRest && last && last.kind !== 'time' && spare > 0) last.width += spare
  for (const c of shown) c.shortTimes = c.kind === 'time' && c.width < c.natural
}

/** What the table left out, for the note under it. */
export interface Dropped {
  /** Names of the columns left out. */
  dropped: string[]
  /** Those left out because every row reads the same: name and value. */
  constant: [string, string][]
  /** The `--columns` that shows the others (none when only constant columns went), and whether it shows all of them. */
  see?: {columns: string[]; complete: boolean}
}

/** An aligned table for a terminal, written page by page. */
export class TableStream {
  private layout: Layout | undefined

  /**
   * @param names column names (as `--columns` names them), for the layout and the dropped-columns note
   * @param headers their headers as shown
   * @param onDropped told once, with the names of the columns left out to fit
   */
  constructor(
    private readonly names: readonly string[],
    private readonly headers: readonly string[],
    private readonly fit: Fit,
    private readonly write: (text: string) => void,
    private readonly showHeaders = true,
    private readonly onDropped?: (dropped: Dropped) => void,
  ) {}

  /** The header row alone, fitted like a table's: a list that turned out empty. */
  headerOnly(): void {
    if (this.layout || !this.showHeaders) return
    this.layout = layoutTable(this.names, this.headers, [], this.fit)
    this.write(renderRow(this.headers, {...this.layout, shown: this.layout.shown.map((c) => ({...c, shortTimes: false}))}, {truncate: true}) + '\n')
  }

  page(rows: readonly string[][]): void {
    if (rows.length === 0) return
    const lines: string[] = []
    if (!this.layout) {
      this.layout = layoutTable(this.names, this.headers, rows, this.fit)
      if (this.layout.dropped.length > 0) {
        const {constant = [], dropped, see} = this.layout
        const named = (indexes: number[]) => indexes.map((i) => this.names[i])
        this.onDropped?.({
          constant: constant.map((c): [string, string] => [this.names[c.index], c.value]),
          dropped: named(dropped),
          see: see && dropped.length > constant.length ? {columns: named(see.columns), complete: see.complete} : undefined,
        })
      }

      if (this.showHeaders) lines.push(renderRow(this.headers, {...this.layout, shown: this.layout.shown.map((c) => ({...c, shortTimes: false}))}, {truncate: true}))
    }

    for (const row of rows) lines.push(renderRow(row, this.layout, this.fit))
    this.write(lines.join('\n') + '\n')
  }
}

/** One record as `key  value` lines; long values wrap within the terminal rather than being cut. */
export function keyValueTable(pairs: [string, string][], width: number): string {
  const keyWidth = Math.max(1, ...pairs.map(([k]) => displayWidth(k)))
  const valueWidth = Math.max(10, width - keyWidth - GAP)
  const layout: Layout = {
    dropped: [],
    shown: [
      {index: 0, shortTimes: false, width: keyWidth},
      {index: 1, shortTimes: false, width: valueWidth},
    ],
  }
  return pairs.map((pair) => renderRow(pair, layout, {truncate: false})).join('\n')
}
