import {describe, expect, it} from 'vitest'

import {chartMetrics} from '../../src/cli/health/metrics-view.js'

const daily = (values: number[]) => ({
  periods: {daily: values.map((v, i) => ({date: `2026-03-${String(i + 1).padStart(2, '0')}`, values: {eventsRescue: v}}))},
})

/** The y-axis labels of a chart, top to bottom. */
function yLabels(chart: string): string[] {
  return chart
    .split('\n')
    .filter((line) => /[┤┼]/.test(line))
    .map((line) => line.slice(0, line.search(/[┤┼]/)).trim())
}

describe('metrics get --chart', () => {
  it('labels a count on whole numbers, one per row, top to bottom', async () => {
    const chart = await chartMetrics(daily([1, 3, 0]) as never)
    expect(yLabels(chart)).toEqual(['3', '2', '1', '0'])
  })

  it('keeps whole-number labels for a wide range of counts', async () => {
    const labels = yLabels(await chartMetrics(daily([0, 117, 40]) as never))
    expect(labels.every((l) => /^\d+$/.test(l))).toBe(true)
    expect(Number(labels[0])).toBeGreaterThanOrEqual(117)
    expect(labels.length).toBeLessThanOrEqual(13)
  })

  it('puts each window’s day under its point on the x axis', async () => {
    const lines = (await chartMetrics(daily([1, 3, 0]) as never)).split('\n')
    const [ticks, dates] = lines.slice(-2)
    expect(dates.trim().split(/\s+/)).toEqual(['03-01', '03-02', '03-03'])
    // Each date starts under a tick (the first under the axis corner).
    for (const date of ['03-01', '03-02', '03-03']) expect('└┬').toContain(ticks[dates.indexOf(date)])
  })

  it('labels at most every few days of a month so the dates do not run together, within 80 columns', async () => {
    const lines = (await chartMetrics(daily(Array.from({length: 31}, (_, i) => i % 4)) as never)).split('\n')
    const dates = lines.at(-1)!.trim().split(/\s+/)
    expect(dates[0]).toBe('03-01')
    expect(dates.length).toBeGreaterThan(3)
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80)
  })
})

describe('metrics get --chart with text a service chose', () => {
  it('shows control characters in metric names and dates escaped', async () => {
    const chart = await chartMetrics({
      periods: {daily: [{date: '2026-03-01\u001B[2J', values: {'events\u001B]0;x\u0007': 2}}, {date: '2026-03-02', values: {'events\u001B]0;x\u0007': 1}}]},
    } as never)
    expect(chart).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/)
    expect(chart).toContain(String.raw`events\e]0;x\x07 (daily)  2026-03-01\e[2J .. 2026-03-02`)
  })
})

describe('charts that fit the terminal', () => {
  const longSeries = (f: (i: number) => number) => ({
    periods: {
      daily: Array.from({length: 120}, (_, i) => ({date: new Date(Date.UTC(2026, 7, 1 + i)).toISOString().slice(0, 10), values: {trendTriggerOutdoorAllergens: f(i)}})),
    },
  })
  const widest = (chart: string) => Math.max(...chart.split('\n').map((l) => [...l].length))

  it.each([80, 120])('120 daily points, a line and bars, fit %i columns and still date the first day', async (width) => {
    for (const f of [(i: number) => Math.round(50 + 40 * Math.sin(i / 9)), (i: number) => (i % 5 === 0 ? 1 : 0)]) {
      const chart = await chartMetrics(longSeries(f) as never, {width})
      expect(widest(chart)).toBeLessThanOrEqual(width)
      expect(chart.split('\n').at(-1)!.trim().startsWith('08-01')).toBe(true)
    }
  })

  it('draws counts of 0 and 1 as bars, not a zigzag, and says how many windows a column holds', async () => {
    const chart = await chartMetrics(longSeries((i) => (i % 5 === 0 ? 1 : 0)) as never, {width: 80})
    expect(chart).toContain('█')
    expect(chart).not.toMatch(/[╭╮╯╰]/)
    expect(chart).toContain('each column: 2 windows, the largest')
    expect(yLabels(chart)).toEqual(['1', '0'])
  })
})
