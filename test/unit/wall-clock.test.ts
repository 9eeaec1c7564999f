import {describe, expect, it} from 'vitest'

import {intlWallClock, localTime, wallClock} from '../../src/cli/output/times.js'

const ZONES = ['UTC', 'Asia/Manila', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham']

describe('wall clock times in tables and CSV', () => {
  it('agree with Intl in every zone, across daylight-saving changes and odd offsets', () => {
    // Every 6 h 13 min 7 s through 2026, each minute around three changes, and old and far dates.
    const instants: number[] = [Date.UTC(1899, 4, 1, 12, 3), Date.UTC(1970, 0, 1), Date.UTC(9999, 11, 31, 23, 59), Date.UTC(999, 0, 1)]
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 22_387_000) instants.push(t)
    for (const change of [Date.UTC(2026, 2, 8, 7), Date.UTC(2026, 3, 4, 15), Date.UTC(2026, 9, 25, 1)]) {
      for (let t = change - 90 * 60_000; t <= change + 90 * 60_000; t += 60_000) instants.push(t)
    }

    const differ: string[] = []
    for (const zone of ZONES) {
      for (const t of instants) {
        const [fast, intl] = [wallClock(new Date(t), zone), intlWallClock(new Date(t), zone)]
        if (JSON.stringify(fast) !== JSON.stringify(intl)) differ.push(`${zone} ${new Date(t).toISOString()}: ${JSON.stringify(fast)}`)
      }
    }

    expect(differ).toEqual([])
  })

  it('the minutes around a change read as the clock on the wall does', () => {
    // New York springs forward at 02:00 local (07:00 UTC) on 2026-03-08.
    expect(localTime('2026-03-08T06:59:00.000Z', 'America/New_York', 'table')).toBe('2026-03-08 01:59 -05:00')
    expect(localTime('2026-03-08T07:00:00.000Z', 'America/New_York', 'csv')).toBe('2026-03-08T03:00:00.000-04:00')
    expect(localTime('2026-03-01T15:30:00Z', 'Asia/Kathmandu', 'table')).toBe('2026-03-01 21:15 +05:45')
  })
})
