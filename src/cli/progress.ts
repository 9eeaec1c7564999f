/**
 * Progress of long work (`events list --all`, `smoke`, `scenario run`) on one line of stderr that
 * rewrites itself. Only in a terminal: piped or redirected stderr gets none of it, so logs and
 * scripts see results, not progress.
 */
import {displayWidth, fitCell} from './output/table.js'

export interface Progress {
  update(text: string): void
  /** Clears the line, so what follows (a table, an error) starts clean. */
  done(): void
}

const SILENT: Progress = {done() {}, update() {}}

export function progress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return SILENT
  let shown = false
  return {
    done() {
      if (shown) stream.write('\r\u001B[2K')
      shown = false
    },
    update(text) {
      // One column short of the terminal: a line that fills it would wrap in some terminals. Display
      // columns, not characters: a wide character in a step's name counts two.
      const width = Math.max(10, (stream.columns || 80) - 1)
      stream.write('\r\u001B[2K' + (displayWidth(text) > width ? fitCell(text, width).trimEnd() : text))
      shown = true
    },
  }
}

/**
 * Progress of a run of steps (`smoke`, `scenario run`). In a terminal each finished step rewrites
 * one line, and the report printed at the end is the only listing of the results. Elsewhere only
 * the steps that did not pass are written (a log needs the failures as they happen, not progress).
 */
export function stepProgress<R>(
  label: string,
  total: number,
  describe: (result: R) => string,
  passed: (result: R) => boolean,
  stream: NodeJS.WriteStream = process.stderr,
): {onStep(result: R): void; done(): void} {
  const line = progress(stream)
  let finished = 0
  return {
    done: () => line.done(),
    onStep(result) {
      finished++
      if (stream.isTTY) line.update(`${label}: ${finished}/${total} ${describe(result)}`)
      else if (!passed(result)) stream.write(describe(result) + '\n')
    },
  }
}
