/**
 * What asciichart leaves out: a y axis in whole numbers for counts, and dates under the x axis.
 * Each window gets the same number of columns, so that date labels have room under their points.
 */

/** At most this many rows above the lowest one. */
const MAX_HEIGHT = 12
/** Counts up to this are drawn as bars, one row per unit: a line through 0s and 1s is a zigzag. */
export const BAR_MAX = 5
/** A label ("03-14") and the gap after it. */
const LABEL_WIDTH = 5
const LABEL_GAP = 2

export interface ChartLayout {
  /** The series with each value repeated `columnsPerPoint` times. */
  series: number[]
  columnsPerPoint: number
  height: number
  min?: number
  max?: number
  format?: (value: number) => string
}

/**
 * Rows and columns for a series of at most `plotWidth` points (see `bucket`): whole-number rows when
 * every value is a whole number; each point repeated to use the width, up to a label's width.
 */
export function layOut(values: number[], fractionalHeight = 8, plotWidth = 60): ChartLayout {
  const columnsPerPoint = Math.max(1, Math.min(LABEL_WIDTH + LABEL_GAP, Math.floor(plotWidth / values.length)))
  const series = values.flatMap((v) => Array.from({length: columnsPerPoint}, () => v))
  if (series.length === 1) series.push(series[0])
  if (!values.every((v) => Number.isInteger(v))) return {columnsPerPoint, height: fractionalHeight, series}
  const min = Math.min(...values)
  const range = Math.max(1, Math.max(...values) - min)
  // A whole number per row: rows step by `step`, and the top is raised to the next multiple of it.
  const step = Math.ceil(range / MAX_HEIGHT)
  const height = Math.ceil(range / step)
  const max = min + height * step
  // asciichart puts a label in one cell, left of the axis at its default offset (3) when it is at
  // least 3 wide: equal widths of at least 3 keep the rows aligned and the label clear of the axis.
  const width = Math.max(3, String(min).length, String(max).length)
  return {columnsPerPoint, format: (v) => String(Math.round(v)).padStart(width), height, max, min, series}
}

/** The x axis: a tick under each labelled window and its day ("MM-DD") below, aligned to the plot. */
export function dateAxis(plot: string, dates: string[], columnsPerPoint: number): string {
  const firstRow = plot.split('\n')[0]
  const axisColumn = Math.max(firstRow.indexOf('┼'), firstRow.indexOf('┤'))
  const every = Math.ceil((LABEL_WIDTH + LABEL_GAP) / columnsPerPoint)
  const ticks = [...' '.repeat(axisColumn + dates.length * columnsPerPoint)]
  const labels = [...ticks]
  for (let i = 0; i < dates.length; i += every) {
    const column = axisColumn + i * columnsPerPoint
    ticks[column] = '┬'
    const label = dates[i].slice(5, 10)
    labels.splice(column, label.length, ...label)
  }

  ticks[axisColumn] = '└'
  return `${ticks.join('').trimEnd()}\n${labels.join('').trimEnd()}`
}

/** True for a series drawn as bars: whole counts from 0 to BAR_MAX. */
export function isSmallCount(values: readonly number[]): boolean {
  return values.every((v) => Number.isInteger(v) && v >= 0 && v <= BAR_MAX)
}

/** Vertical bars, one row per unit, with the y labels and axis as asciichart draws them. */
export function barPlot(values: readonly number[], columnsPerPoint: number): string {
  const top = Math.max(1, ...values)
  const width = String(top).length
  const rows: string[] = []
  for (let level = top; level >= 0; level--) {
    // Bars wider than a column keep a gap between them, so that neighbours do not merge into a block.
    const bar = (v: number) => (v >= level ? '█' : ' ').repeat(columnsPerPoint > 1 ? columnsPerPoint - 1 : 1).padEnd(columnsPerPoint)
    const cells = values.map((v) => (level === 0 ? '─'.repeat(columnsPerPoint) : bar(v))).join('')
    rows.push(`${' '.repeat(3)}${String(level).padStart(width)} ${level === 0 ? '┼' : '┤'}${cells}`.trimEnd())
  }

  return rows.join('\n')
}

/**
 * A long series folded into at most `columns` points: each point stands for `size` consecutive
 * windows (their mean, or for bars their largest count, so that a single event still shows), dated
 * by the first.
 */
export function bucket<T extends {date: string}>(points: readonly T[], values: readonly number[], columns: number, bars: boolean) {
  const size = Math.max(1, Math.ceil(points.length / Math.max(1, columns)))
  if (size === 1) return {dates: points.map((p) => p.date), size, values: [...values]}
  const dates: string[] = []
  const folded: number[] = []
  for (let i = 0; i < values.length; i += size) {
    const group = values.slice(i, i + size)
    dates.push(points[i].date)
    folded.push(bars ? Math.max(...group) : group.reduce((a, b) => a + b, 0) / group.length)
  }

  return {dates, size, values: folded}
}
