/**
 * Every time flag takes the same forms (src/services/time-input.ts): events list and metrics get
 * read `--start 7d`, `today`, `now` as audit list always did, and refuse the same bad input.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import EventsList from '../../src/commands/events/list.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

const DAY = 86_400_000

describe('relative times on events list and metrics get', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness({OPSCTL_HEALTH_SESSION: 'sess-123'})
  })
  afterEach(async () => {
    await h.close()
  })

  /** The query of the request a dry run would send. */
  async function query(Cmd: typeof EventsList | typeof MetricsGet, argv: string[]): Promise<URLSearchParams> {
    const r = await h.run(Cmd, [...argv, '--dry-run', '--json'])
    expect(r.code, r.stderr).toBe(0)
    return new URL(JSON.parse(r.stdout).request.url).searchParams
  }

  it('events list --start 7d --end now asks for the last seven days', async () => {
    const before = Date.now()
    const q = await query(EventsList, ['u-1', '--start', '7d', '--end', 'now'])
    const start = Date.parse(q.get('startDate')!)
    expect(start).toBeGreaterThanOrEqual(before - 7 * DAY - 1000)
    expect(start).toBeLessThanOrEqual(Date.now() - 7 * DAY + 1000)
    expect(Date.parse(q.get('endDate')!)).toBeGreaterThanOrEqual(before - 1000)
  })

  it('metrics get --start yesterday --end today asks for one whole day of this machine', async () => {
    const q = await query(MetricsGet, ['u-1', '--name', 'eventsRescue', '--period', 'daily', '--start', 'yesterday', '--end', 'today'])
    const [start, end] = [Date.parse(q.get('startDate')!), Date.parse(q.get('endDate')!)]
    // 24 hours, or 23/25 across a daylight-saving change of this machine's zone
    expect(end - start).toBeGreaterThanOrEqual(23 * 3_600_000)
    expect(end - start).toBeLessThanOrEqual(25 * 3_600_000)
    expect(new Date(end).getHours()).toBe(0)
  })

  it.each([
    [EventsList, ['u-1', '--start', 'tomorrow']],
    [MetricsGet, ['u-1', '--name', 'eventsRescue', '--start', 'tomorrow']],
    [MetricsGet, ['u-1', '--name', 'eventsRescue', '--start', 'today', '--end', '7d']],
  ] as const)('refuses what it cannot read, or a start after the end, before sending (%#)', async (Cmd, argv) => {
    const r = await h.run(Cmd, [...argv])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toMatch(/^Error: --start(: "tomorrow" is not a time| \(.*\) is after --end)/)
    expect(h.calls()).toEqual([])
  })
})
