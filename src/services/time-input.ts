/**
 * The one reader of a point in time as a person types it, for every time flag (events list and
 * metrics get --start/--end, audit list --since/--until, events add --date):
 * - an ISO 8601 time with a zone (`2026-11-21T10:00:00Z`, `...+08:00`), or a date (`2026-11-21`,
 *   its midnight UTC);
 * - a duration back from now: `24h`, `7d`, `90m`, `1d12h`;
 * - `now`, `today` or `yesterday` (midnight at the start of that day, in this machine's time zone).
 * Anything else is an input error naming the input (`input`, worded by the caller: a flag, a step key) and these forms.
 */
import {InputError} from '../errors.js'
import {parseDuration} from './duration.js'
import {zoneOffsetMs} from './zone-offset.js'

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
/** An ISO 8601 time with its zone (without zod: audit list, a local command, does not load it). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i

export interface TimeInputContext {
  now?: Date
  /** IANA zone of `today` and `yesterday`; default: this machine's */
  zone?: string
  /** IANA zone whose midnight a date without a time (`2026-11-21`) means; default UTC */
  dateZone?: string
}

export function parseTimeInput(value: string, input: string, {dateZone, now = new Date(), zone}: TimeInputContext = {}): Date {
  const text = value.trim()
  const word = text.toLowerCase()
  if (word === 'now') return now
  if (word === 'today' || word === 'yesterday') return startOfDay(now, zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone, word === 'today' ? 0 : 1)
  const ago = parseDuration(text)
  if (ago !== undefined && ago >= 0) return new Date(now.getTime() - ago)
  const candidate = DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text
  if (dateZone && DATE_ONLY.test(text) && isCalendarTime(candidate)) {
    const [year, month, day] = text.split('-').map(Number)
    return midnightIn(dateZone, year, month, day)
  }

  const at = DATE_TIME.test(candidate) && isCalendarTime(candidate) ? Date.parse(candidate) : Number.NaN
  if (Number.isNaN(at)) {
    const hint = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? ' (add Z or an offset such as +08:00)' : ''
    throw new InputError([input], (name) => {
      const flag = name(input)
      return {
        message: `${flag}: "${value}" is not a time${hint}`,
        suggestions: [`Use an ISO 8601 time (${flag} 2026-03-01T08:30:00Z, ${flag} 2026-03-01), a duration back from now (${flag} 7d), or today, yesterday, now`],
      }
    })
  }

  return new Date(at)
}

/** The date is a day of the calendar and the time a time of day: `Date.parse` would roll 2026-02-30 over to March 2. */
function isCalendarTime(text: string): boolean {
  const [year, month, day, hour, minute, second] = text.split(/[-T:.Z+]/i).slice(0, 6).map(Number)
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour <= 23 && minute <= 59 && !(second > 59)
}

/** Midnight at the start of the day `daysBack` days before `now`'s day, in `zone`. */
function startOfDay(now: Date, zone: string, daysBack: number): Date {
  const [year, month, day] = new Intl.DateTimeFormat('en-CA', {day: '2-digit', month: '2-digit', timeZone: zone, year: 'numeric'})
    .format(now)
    .split('-')
    .map(Number)
  return midnightIn(zone, year, month, day - daysBack)
}

/** Midnight at the start of a calendar day in `zone`, as an instant. */
function midnightIn(zone: string, year: number, month: number, day: number): Date {
  const midnightUtc = Date.UTC(year, month - 1, day)
  // The zone's offset at that midnight, asked twice: a change of offset (daylight saving) near it moves it.
  const first = midnightUtc - zoneOffsetMs(midnightUtc, zone)
  return new Date(midnightUtc - zoneOffsetMs(first, zone))
}

/** The `since` and `until` of a listing, read at `now`; `since` not before `until` is an input error. */
export function parseTimeRange(since: string | undefined, until: string | undefined, now = new Date()): {since?: Date; until?: Date} {
  const from = since === undefined ? undefined : parseTimeInput(since, 'since', {now})
  const to = until === undefined ? undefined : parseTimeInput(until, 'until', {now})
  if (from && to && from.getTime() >= to.getTime()) throw new InputError(['since', 'until'], (name) => ({message: `${name('since')} must be before ${name('until')}`}))
  return {since: from, until: to}
}
