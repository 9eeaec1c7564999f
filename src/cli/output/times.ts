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

/**
 * `2026-03-01T15:30:00.000Z` in Asia/Manila: `2026-03-01 23:30 +08:00` (table) or
 * `2026-03-01T23:30:00.000+08:00` (csv, still an exact ISO 8601 value). Without a zone: UTC.
 */
export function localTime(iso: string, zone: string | undefined, style: TimeStyle): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  if (!zone && style === 'csv') return iso
  const parts: Record<string, string> = {}
  for (const p of formatter(zone ?? 'UTC').formatToParts(date)) parts[p.type] = p.value
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.replace('GMT', '')
  const day = `${parts.year}-${parts.month}-${parts.day}`
  const clock = `${parts.hour}:${parts.minute}:${parts.second}`
  // Seconds are left to JSON and CSV: a table is read by people, at a glance.
  if (style === 'table') return `${day} ${parts.hour}:${parts.minute} ${zone ? offset : 'UTC'}`
  const ms = /\.\d+/.exec(iso)?.[0] ?? ''
  return `${day}T${clock}${ms}${offset}`
}
