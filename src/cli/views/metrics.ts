/** Renders a getMetrics answer: one row per window (table/csv/ndjson) or one chart per metric. */
import type {MetricsResult} from '../../services/health/operations.js'

import {escapeControlChars} from '../../control-chars.js'
import {dateAxis, layOut} from './chart-axes.js'

export function metricRows(result: MetricsResult, names: readonly string[]): {columns: string[]; rows: Record<string, unknown>[]} {
  const rows: Record<string, unknown>[] = []
  const shown = new Set<string>()
  for (const [period, windows] of Object.entries(result.periods ?? {})) {
    for (const w of windows) {
      const values = w.values ?? {}
      for (const k of Object.keys(values)) shown.add(k)
      rows.push({period, date: w.date, ...values})
    }
  }

  const ordered = [...names.filter((n) => shown.has(n)), ...[...shown].filter((n) => !names.includes(n))]
  return {columns: ['period', 'date', ...ordered], rows}
}

/** One asciichart plot per metric and period; empty windows (null) are left out of the line. asciichart is loaded only here. */
export async function chartMetrics(result: MetricsResult, height = 8): Promise<string> {
  const {default: asciichart} = await import('asciichart')
  const blocks: string[] = []
  for (const [period, windows] of Object.entries(result.periods ?? {})) {
    const names = [...new Set(windows.flatMap((w) => Object.keys(w.values ?? {})))]
    for (const name of names) {
      const points = windows.filter((w) => typeof w.values?.[name] === 'number')
      // Names and dates come from the service: shown, not acted on by the terminal.
      const title = escapeControlChars(`${name} (${period})`)
      if (points.length === 0) {
        blocks.push(`${title}: no values in range`)
        continue
      }

      const series = points.map((w) => w.values[name] as number)
      const layout = layOut(series, height)
      const {format, max, min} = layout
      const plot = asciichart.plot(layout.series, {height: layout.height, ...(format ? {format, max, min} : {})})
      const axis = escapeControlChars(dateAxis(plot, points.map((w) => w.date), layout.columnsPerPoint), {keepNewlines: true})
      blocks.push(`${title}  ${escapeControlChars(`${points[0].date} .. ${points.at(-1)!.date}`)}  min ${Math.min(...series)}  max ${Math.max(...series)}\n${plot}\n${axis}`)
    }
  }

  return blocks.join('\n\n')
}
