/**
 * Time is an input: the support and merchant paths on a sandbox whose clock is pinned at the edges
 * of the calendar, so that a test passing today cannot fail on the 1st. The sandbox is a real
 * process started with `--clock` (it runs on from there), and the CLI runs as real processes: the
 * periods and windows they show are the service's, read from its `Date` header.
 *
 * - the first of a month (in UTC and in Manila);
 * - the last day of a month;
 * - 23:30 UTC, already the next day (and here the next month) in Manila (UTC+8);
 * - the void window's last minute, 23:59 in Manila, while the UTC day has eight hours to go.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type Cli, cliFor, type Sandbox, startSandbox} from './harness.js'

const CAREGIVER = {email: 'caregiver@demo-clinic.test', password: 'demo-caregiver-pass'}
const PATIENT = 'patient@demo-clinic.test'

interface Edge {
  name: string
  clock: string
  /** The Manila date (and midnight) the default period of `users inspect` starts on: six days before Manila's today. */
  periodStart: string
  periodStartText: string
}

const EDGES: Edge[] = [
  {name: 'the first of a month', clock: '2026-12-01T00:30:00Z', periodStart: '2026-11-24T16:00:00.000Z', periodStartText: '2026-11-25 00:00'},
  {name: 'the last day of a month', clock: '2026-11-30T04:00:00Z', periodStart: '2026-11-23T16:00:00.000Z', periodStartText: '2026-11-24 00:00'},
  {name: '23:30 UTC, the next day in Manila', clock: '2026-11-30T23:30:00Z', periodStart: '2026-11-24T16:00:00.000Z', periodStartText: '2026-11-25 00:00'},
  {name: '23:59 in Manila, the void window\'s last minute', clock: '2026-11-30T15:59:00Z', periodStart: '2026-11-23T16:00:00.000Z', periodStartText: '2026-11-24 00:00'},
]

describe.each(EDGES)('on $name ($clock)', (edge) => {
  let sandbox: Sandbox
  let user: Cli
  beforeAll(async () => {
    sandbox = await startSandbox(['--clock', edge.clock, '--seed'])
    user = cliFor(sandbox)
  })
  afterAll(async () => {
    user?.cleanup()
    await sandbox?.stop()
  })

  it('support: users inspect shows the last 7 days of the demo patient, events included, named on screen', async () => {
    const login = await user.run(['users', 'login', '--email', CAREGIVER.email, '--password-stdin'], {input: CAREGIVER.password})
    expect(login.code, login.stderr).toBe(0)

    const doc = await user.json(['users', 'inspect', PATIENT])
    expect(doc.metrics.startDate).toBe(edge.periodStart)
    expect(Date.parse(doc.metrics.endDate)).toBeGreaterThanOrEqual(Date.parse(edge.clock))
    // a week of the seeded history: never an empty screen, never 0% adherence for a patient who takes the controller
    expect(doc.events).toHaveLength(10)
    for (const event of doc.events) expect(Date.parse(event.date)).toBeGreaterThanOrEqual(Date.parse(edge.periodStart))
    expect(doc.metrics.controllerDosesTaken).toBeGreaterThan(0)
    expect(doc.metrics.adherencePercent).toBeGreaterThan(0)

    const screen = await user.run(['users', 'inspect', PATIENT])
    expect(screen.code, screen.stderr).toBe(0)
    expect(screen.stdout).toContain(`Period: the last 7 days, ${edge.periodStartText} to `)
    expect(screen.stdout).toContain('(Asia/Manila)')
  })

  it('merchant: a payment made now can be voided until 23:59:59 of its Manila day, not of its UTC day', async () => {
    const pay = async () => {
      const {checkoutId} = await user.json(['checkout', 'create', '--amount', '150.00', '--success-url', 'https://shop.example/ok'])
      const paid = await user.json(['checkout', 'pay', checkoutId, '--card', '5123456789012346'])
      expect(paid.paymentStatus).toBe('PAYMENT_SUCCESS')
      return checkoutId as string
    }

    const voidNow = await pay()
    const voided = await user.run(['checkout', 'void', voidNow, '--reason', 'edge of the day', '--yes'])
    expect(voided.code, voided.stderr).toBe(0)

    // One past the window: the first second of the next Manila day, whatever the UTC date says.
    const late = await pay()
    const manilaDay = new Date(Date.parse(edge.clock) + 8 * 3_600_000).toISOString().slice(0, 10)
    const windowEnd = Date.parse(`${manilaDay}T23:59:59+08:00`)
    const seconds = Math.ceil((windowEnd - Date.parse((await sandbox.control('clock')).now)) / 1000) + 1
    const moved = await user.run(['sandbox', 'clock', '--advance', `${seconds}s`])
    expect(moved.code, moved.stderr).toBe(0)
    const refused = await user.run(['checkout', 'void', late, '--reason', 'too late', '--yes'])
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toContain(`void window closed at ${manilaDay} 23:59:59 +08:00`)
  })
})
