/** asciichart ships no types; this is the part opsctl uses. */
declare module 'asciichart' {
  export interface PlotConfig {
    height?: number
    min?: number
    max?: number
    offset?: number
    padding?: string
    format?: (x: number, i: number) => string
  }
  export function plot(series: number[] | number[][], config?: PlotConfig): string
  const asciichart: {plot: typeof plot}
  export default asciichart
}
