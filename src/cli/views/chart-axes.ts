/**
 * What asciichart leaves out: a y axis in whole numbers for counts, and dates under the x axis.
 * Each window gets the same number of columns, so that date labels have room under their points.
 */

/** At most this many rows above the lowest one. */
const MAX_HEIGHT = 12
/** Widest the plotted area grows to by repeating each window's value. */
const TARGET_WIDTH = 60
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

/** Rows and columns for a series: whole-number rows when every value is a whole number. */
export function layOut(values: number[], fractionalHeight = 8): ChartLayout {
  const columnsPerPoint = Math.max(1, Math.min(LABEL_WIDTH + LABEL_GAP, Math.floor(TARGET_WIDTH / values.length)))
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
