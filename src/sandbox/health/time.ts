/**
 * Local calendar arithmetic in a user's IANA time zone, with the runtime's Intl only.
 * Local days are `YYYY-MM-DD` strings; day arithmetic on them is time-zone free.
 */
import {NIGHT_END_HOUR, NIGHT_START_HOUR} from '../../services/health/operations.js'

export interface LocalParts {
  /** `YYYY-MM-DD` in the zone */
  day: string
  hour: number
  minute: number
  /** 0 = Sunday ... 6 = Saturday */
  weekday: number
}

const formats = new Map<string, Intl.DateTimeFormat>()

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
    formats.set(timeZone, f)
  }

  return f
}

export function localParts(date: Date | string, timeZone: string): LocalParts {
  const parts: Record<string, string> = {}
  for (const p of formatFor(timeZone).formatToParts(typeof date === 'string' ? new Date(date) : date)) parts[p.type] = p.value
  const day = `${parts.year}-${parts.month}-${parts.day}`
  return {day, hour: Number(parts.hour) % 24, minute: Number(parts.minute), weekday: weekdayOf(day)}
}

/** Night window of spec section 8: 22:00 to 06:00 local time. */
export function isNightHour(hour: number): boolean {
  return hour >= NIGHT_START_HOUR || hour < NIGHT_END_HOUR
}

export function isNightEvent(date: Date | string, timeZone: string): boolean {
  return isNightHour(localParts(date, timeZone).hour)
}

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}

export function weekdayOf(day: string): number {
  return new Date(`${day}T00:00:00Z`).getUTCDay()
}

/** Monday of the (ISO) week of a local day. */
export function weekStart(day: string): string {
  return addDays(day, -((weekdayOf(day) + 6) % 7))
}

export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`
}

/** Every local day from `first` to `last`, both included. */
export function daysBetween(first: string, last: string): string[] {
  const out: string[] = []
  for (let d = first; d <= last; d = addDays(d, 1)) out.push(d)
  return out
}
