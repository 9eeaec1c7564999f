/**
 * Client-side checks of health command input: each refuses a bad value with a one-line
 * UsageError (exit 2) or RuleError (exit 5) before anything is sent.
 */
import {InputError, RuleError, UsageError} from '../../errors.js'
import {parseTimeInput} from '../time-input.js'
import {isMetricProblem, type MetricPeriod, type MetricProblem, planMetricRequest, validNamesText} from './metrics.js'
import {IsoDateTime, Mac} from './operations.js'

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

/**
 * An ISO 8601 date-time with `Z` or an offset, or a calendar date (`2026-03-01`, read as 00:00 UTC).
 * Returns it as a UTC ISO string. Impossible dates (2026-02-30) are refused too.
 */
export function parseIsoDate(value: string, flag: string): string {
  const text = value.trim()
  const candidate = DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text
  if (!IsoDateTime.safeParse(candidate).success) {
    const hint = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? ' (add Z or an offset such as +08:00)' : ''
    throw new UsageError(`${flag}: "${value}" is not an ISO 8601 date-time${hint}`, [
      `Use e.g. ${flag} 2026-03-01T08:30:00Z or ${flag} 2026-03-01`,
    ])
  }

  const date = new Date(candidate)
  if (Number.isNaN(date.getTime())) throw new UsageError(`${flag}: "${value}" is not a valid date`)
  return date.toISOString()
}

/**
 * The `start`/`end` of any command that takes a range (events list, metrics get): each a time as
 * ../time-input.ts reads it (ISO 8601, 7d, today...), and the start not after the end. One check,
 * so both commands take and refuse the same input.
 */
export function parseDateRange(start: string | undefined, end: string | undefined, now = new Date()): {endDate?: string; startDate?: string} {
  const startDate = start === undefined ? undefined : parseTimeInput(start, 'start', {now}).toISOString()
  const endDate = end === undefined ? undefined : parseTimeInput(end, 'end', {now}).toISOString()
  if (startDate && endDate && startDate > endDate) {
    throw new InputError(['start', 'end'], (name) => ({message: `${name('start')} (${startDate}) is after ${name('end')} (${endDate})`}))
  }

  return {endDate, startDate}
}

const macProblem = (what: string, value: string): string => `Invalid ${what} "${value}": expected six hex pairs like AA:BB:CC:DD:EE:FF`

/** `aa-bb-cc-dd-ee-ff` or `aa:bb:...` -> `AA:BB:CC:DD:EE:FF`; anything else is refused. */
export function normalizeMac(value: string, what = 'MAC address'): string {
  const parsed = Mac.safeParse(value)
  if (!parsed.success) throw new UsageError(macProblem(what, value))
  return parsed.data
}

/** `08:30=2` (or `08:30`, one dose) -> one entry of a usage list. */
export function parseUsage(value: string): {hour: number; minute: number; doses: number} {
  const m = /^(\d{1,2}):(\d{2})(?:[=x](\d+))?$/.exec(value.trim())
  const hour = m ? Number(m[1]) : Number.NaN
  const minute = m ? Number(m[2]) : Number.NaN
  const doses = m?.[3] === undefined ? 1 : Number(m[3])
  if (!m || hour > 23 || minute > 59 || doses < 1) {
    throw new InputError(['usage'], (name) => ({
      message: `${name('usage')}: "${value}" is not a time and doses like 08:30=2 (HH:MM, 00:00 to 23:59, at least 1 dose)`,
    }))
  }

  return {hour, minute, doses}
}

/** `AA:BB:CC:DD:EE:FF=model` -> a sensor of a plan medication. */
export function parseSensor(value: string): {mac: string; model: string} {
  const i = value.indexOf('=')
  if (i <= 0 || i === value.length - 1) {
    throw new InputError(['sensor'], (name) => ({message: `${name('sensor')}: "${value}" is not MAC=model, e.g. AA:BB:CC:DD:EE:FF=hfa-inhaler`}))
  }

  const mac = Mac.safeParse(value.slice(0, i))
  if (!mac.success) throw new InputError(['sensor'], (name) => ({message: macProblem(`${name('sensor')} MAC`, value.slice(0, i))}))
  return {mac: mac.data, model: value.slice(i + 1)}
}

/**
 * Checks a getMetrics request against the supported table (spec section 8) and returns the
 * periods to send; an unsupported pair is a RuleError (exit 5) listing the valid names.
 */
export function checkMetricRequest(names: readonly string[], periods: readonly string[] = []): MetricPeriod[] {
  const plan = planMetricRequest(names, periods)
  if (isMetricProblem(plan)) {
    const error = new RuleError(plan.message, metricAdvice(plan), 'UNSUPPORTED_METRIC')
    // A name of another period has its fix in the advice; otherwise the table is where to look.
    throw plan.ownPeriod ? error.withNext({period: plan.ownPeriod, step: 'metrics-period'}) : error.withNext({period: plan.period, step: 'metrics-names'})
  }

  return Object.keys(plan.byPeriod) as MetricPeriod[]
}

/** What to do about an unsupported pair (asking the name's own period is a next step): one of a few valid names (a long list is left to `metrics names`). */
function metricAdvice(problem: MetricProblem): string[] {
  const advice: string[] = []
  const names = validNamesText(problem)
  if (names && (problem.validNames?.length ?? 0) <= 6) advice.push(names[0].toUpperCase() + names.slice(1))
  return advice
}
