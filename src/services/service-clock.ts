/**
 * The service's own time, from its `Date` header: a period or a window is judged by the service's
 * clock, not the laptop's (and a sandbox's clock may have been moved). Falls back to the local clock.
 */
export function serviceNow(headers: Record<string, string | string[] | undefined>, fallback: () => Date = () => new Date()): Date {
  const raw = headers.date
  const text = Array.isArray(raw) ? raw[0] : raw
  const parsed = text ? new Date(text) : undefined
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : fallback()
}
