/**
 * How far the sandbox clock may move. Beyond a few thousand years a JavaScript Date is invalid and
 * every answer that prints a time would fail, so the clock stays within ten years of the real time,
 * and it only goes forward: an advance is never negative, and a time set is never before its now
 * (what fell due on the way has happened; a sandbox reset starts a tenant over).
 */
const DAY_MS = 86_400_000

/** Ten years, leap days included. */
export const CLOCK_RANGE_DAYS = 3653
export const CLOCK_RANGE_MS = CLOCK_RANGE_DAYS * DAY_MS

/** Why advancing the clock by `ms` is refused; undefined when it is allowed. */
export function advanceProblem(ms: number): string | undefined {
  if (Number.isNaN(ms) || ms < 0) return 'must not be negative: the clock only moves forward (sandbox reset starts a tenant over)'
  if (ms > CLOCK_RANGE_MS) return `may move the clock at most 10 years (${CLOCK_RANGE_DAYS}d) at a time`
  return undefined
}

/** Why putting the clock at `at` (ms since the epoch) is refused, given the real time; undefined when allowed. */
export function clockTimeProblem(at: number, realNow: number = Date.now()): string | undefined {
  if (Math.abs(at - realNow) <= CLOCK_RANGE_MS) return undefined
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  return `must be within 10 years of the real time (${day(realNow - CLOCK_RANGE_MS)} to ${day(realNow + CLOCK_RANGE_MS)})`
}
