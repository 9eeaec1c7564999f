import {createContext, Script} from 'node:vm'

/**
 * How long one `matches` of a scenario may take. A pattern such as `(a+)+$` backtracks
 * exponentially on a few dozen characters; no static check catches every such pattern (`(a|a)*$`
 * has no nested quantifier), so the match itself runs under a time limit: V8 interrupts a regular
 * expression in a `vm` script that runs out of time.
 */
export const PATTERN_TIME_LIMIT_MS = 1000

const context = createContext(Object.create(null))
const TEST = new Script('pattern.test(text)')

/** Why `source` is not a regular expression, or undefined when it is one. */
export function patternProblem(source: string): string | undefined {
  try {
    new RegExp(source) // eslint-disable-line no-new
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** Whether `text` matches `source`; throws with a clear message when the pattern is invalid or runs out of time. */
export function matchesPattern(source: string, text: string): boolean {
  const problem = patternProblem(source)
  if (problem) throw new Error(`/${source}/ is not a regular expression: ${problem}`)
  context.pattern = new RegExp(source)
  context.text = text
  try {
    return TEST.runInContext(context, {timeout: PATTERN_TIME_LIMIT_MS}) === true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new Error(`/${source}/ took longer than ${PATTERN_TIME_LIMIT_MS / 1000} s to match (it backtracks without end, as nested repeats like (a+)+ do); simplify it`)
    }

    throw error
  } finally {
    context.pattern = undefined
    context.text = undefined
  }
}
