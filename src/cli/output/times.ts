/**
 * Times for people: an exact ISO instant from the service, shown as a wall-clock time in a zone
 * (the health user's, the checkout service's UTC+8) in tables and CSV. JSON keeps the ISO value.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/

export type TimeStyle = 'csv' | 'table'

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
      minute: '2-digit',
      month: '2-digit',
      second: '2-digit',
      timeZone: zone,
      timeZoneName: 'longOffset',
      year: 'numeric',
    })
    formatters.set(zone, f)
  }

  return f
}

export function isIsoInstant(value: string): boolean {
  return value.length >= 16 && value.length <= 35 && ISO_INSTANT.test(value)
}

export interface WallClock {
  /** `2026-03-01` */
  day: string
  hour: string
  minute: string
  second: string
  /** `+08:00` */
  offset: string
}

/** The wall clock at `date` in `zone`, from Intl (the reference; ~20 µs a call). */
export function intlWallClock(date: Date, zone: string): WallClock {
  const parts: Record<string, string> = {}
  for (const p of formatter(zone).formatToParts(date)) parts[p.type] = p.value
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.replace('GMT', '')
  return {day: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour, minute: parts.minute, offset, second: parts.second}
}

const HOUR_MS = 3_600_000
const OFFSET = /^([+-])(\d{2}):(\d{2})$/
/** Per zone, the UTC offset of each hour asked for whose offset does not change within it. */
const hourOffsets = new Map<string, Map<number, string>>()

/**
 * The same as `intlWallClock`, asking Intl once an hour of instants rather than once a cell (a
 * table of 20,000 events). An hour that starts and ends on one offset has it throughout (no zone
 * changes offset twice within an hour); any other hour, and odd years, go to Intl.
 */
export function wallClock(date: Date, zone: string): WallClock {
  const time = date.getTime()
  const hour = Math.floor(time / HOUR_MS)
  let offsets = hourOffsets.get(zone)
  if (!offsets) hourOffsets.set(zone, (offsets = new Map()))
  let offset = offsets.get(hour)
  if (offset === undefined) {
    const first = intlWallClock(new Date(hour * HOUR_MS), zone).offset
    const last = intlWallClock(new Date(hour * HOUR_MS + HOUR_MS - 1), zone).offset
    if (first !== last || !OFFSET.test(first)) return intlWallClock(date, zone)
    if (offsets.size > 10_000) offsets.clear()
    offsets.set(hour, (offset = first))
  }

  const [, sign, hh, mm] = OFFSET.exec(offset)!
  const shifted = new Date(time + (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) * 60_000).toISOString()
  // toISOString writes years before 1000 with four digits and years past 9999 with six; Intl does not.
  if (!/^[1-9]\d{3}-/.test(shifted)) return intlWallClock(date, zone)
  return {day: shifted.slice(0, 10), hour: shifted.slice(11, 13), minute: shifted.slice(14, 16), offset, second: shifted.slice(17, 19)}
}

/**
 * `2026-03-01T15:30:00.000Z` in Asia/Manila: `2026-03-01 23:30 +08:00` (table) or
 * `2026-03-01T23:30:00.000+08:00` (csv, still an exact ISO 8601 value). Without a zone: UTC.
 */
export function localTime(iso: string, zone: string | undefined, style: TimeStyle): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  if (!zone && style === 'csv') return iso
  const {day, hour, minute, offset, second} = wallClock(date, zone ?? 'UTC')
  // Seconds are left to JSON and CSV: a table is read by people, at a glance.
  if (style === 'table') return `${day} ${hour}:${minute} ${zone ? offset : 'UTC'}`
  const ms = /\.\d+/.exec(iso)?.[0] ?? ''
  return `${day}T${hour}:${minute}:${second}${ms}${offset}`
}

/** A time as a table shows it (`localTime(..., 'table')`). */
const TABLE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} (?:UTC|[+-]\d{2}:\d{2})$/

/**
 * A table's time without its year, `2026-03-01 23:30 +08:00` as `03-01 23:30 +08:00`: what a
 * narrow table drops rather than cut a time. Undefined for a cell that is not a time.
 */
export function shortTableTime(cell: string): string | undefined {
  return TABLE_TIME.test(cell) ? cell.slice(5) : undefined
}
