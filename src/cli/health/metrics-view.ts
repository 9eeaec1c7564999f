/** Renders a getMetrics answer: one row per window (table/csv/ndjson) or one chart per metric. */
import type {MetricsResult} from '../../services/health/operations.js'

import {escapeControlChars} from '../../control-chars.js'
import {barPlot, bucket, dateAxis, isSmallCount, layOut} from '../views/chart-axes.js'

export function metricRows(result: MetricsResult, names: readonly string[]): {columns: string[]; rows: Record<string, unknown>[]} {
  const rows: Record<string, unknown>[] = []
  const shown = new Set<string>()
  for (const [period, windows] of Object.entries(result.periods)) {
    for (const w of windows) {
      const {values} = w
      for (const k of Object.keys(values)) shown.add(k)
      rows.push({period, date: w.date, ...values})
    }
  }

  const ordered = [...names.filter((n) => shown.has(n)), ...[...shown].filter((n) => !names.includes(n))]
  return {columns: ['period', 'date', ...ordered], rows}
}

/** Columns left of the plotted area: asciichart's offset, the widest y label and the axis. */
const AXIS_ROOM = 14

/**
 * One plot per metric and period, within `width` columns: a long series is folded into buckets
 * (./chart-axes.ts), small counts are bars, the rest an asciichart line; empty windows (null) are
 * left out. asciichart is loaded only here.
 */
export async function chartMetrics(result: MetricsResult, {height = 8, width = 80}: {height?: number; width?: number} = {}): Promise<string> {
  const {default: asciichart} = await import('asciichart')
  const blocks: string[] = []
  for (const [period, windows] of Object.entries(result.periods)) {
    const names = [...new Set(windows.flatMap((w) => Object.keys(w.values)))]
    for (const name of names) {
      const points = windows.filter((w) => typeof w.values[name] === 'number')
      // Names and dates come from the service: shown, not acted on by the terminal.
      const title = escapeControlChars(`${name} (${period})`)
      if (points.length === 0) {
        blocks.push(`${title}: no values in range`)
        continue
      }

      const raw = points.map((w) => w.values[name] as number)
      const bars = isSmallCount(raw)
      const plotWidth = Math.max(10, width - AXIS_ROOM)
      const folded = bucket(points, raw, plotWidth, bars)
      const layout = layOut(folded.values, height, plotWidth)
      const {format, max, min} = layout
      const plot = bars
        ? barPlot(folded.values, layout.columnsPerPoint)
        : asciichart.plot(layout.series, {height: layout.height, ...(format ? {format, max, min} : {})})
      const axis = escapeControlChars(dateAxis(plot, folded.dates, layout.columnsPerPoint), {keepNewlines: true})
      const each = folded.size > 1 ? `  (each column: ${folded.size} windows, ${bars ? 'the largest' : 'their mean'})` : ''
      const heading = `${title}  ${escapeControlChars(`${points[0].date} .. ${points.at(-1)!.date}`)}`
      const range = `min ${Math.min(...raw)}  max ${Math.max(...raw)}${each}`
      const summary = heading.length + 2 + range.length <= width ? `${heading}  ${range}` : `${heading}\n${range.trim()}`
      blocks.push(`${summary}\n${plot}\n${axis}`)
    }
  }

  return blocks.join('\n\n')
}
