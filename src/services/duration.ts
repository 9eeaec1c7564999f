const UNITS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

/** `26h`, `90m`, `1d12h`, `-2h`, `1500ms` -> milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^(-)?((?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+)$/.exec(text.trim())
  if (!match) return undefined
  let total = 0
  for (const [, n, unit] of match[2].matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)) total += Number(n) * UNITS[unit]
  return match[1] ? -total : total
}
