import {UsageError} from '../errors.js'
import {parseDuration} from '../services/duration.js'

/**
 * A point in time as a flag gives it: an ISO 8601 time (`2026-11-21`, `2026-11-21T10:00:00Z`) or
 * a duration back from now (`24h`, `7d`, `90m`). Anything else is exit 2.
 */
export function parseTimeFlag(text: string, flag: string, now: Date = new Date()): Date {
  const ago = parseDuration(text)
  if (ago !== undefined && ago >= 0) return new Date(now.getTime() - ago)
  const at = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at)) throw new UsageError(`${flag} must be an ISO 8601 time (2026-11-21T10:00:00Z) or a duration back from now (24h, 7d), got ${text}`)
  return new Date(at)
}
