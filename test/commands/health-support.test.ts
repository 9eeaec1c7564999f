/**
 * Health support commands in-process, against MockAgent: the plan check of `events add/update`
 * (one read, exit 2 and no write on a mismatch, --no-plan-check, --dry-run), `users inspect`
 * and `plan show`, and the hint of a 403.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import EventsAdd from '../../src/commands/events/add.js'
import EventsUpdate from '../../src/commands/events/update.js'
import PlanShow from '../../src/commands/plan/show.js'
import UsersInspect from '../../src/commands/users/inspect.js'
import UsersLogin from '../../src/commands/users/login.js'
import {cli, type CommandHarness, commandHarness} from '../helpers/command.js'
import {JSON_HEADERS, signedIn} from '../helpers/health.js'

let h: CommandHarness
beforeEach(async () => {
  h = await commandHarness()
  await signedIn(h, UsersLogin)
})
afterEach(async () => {
  await h.close()
})

const PLAN = {
  medications: [
    {medicationId: 'med-fluticasone', medicationType: 'controller', usageList: [{hour: 8, minute: 0, doses: 2}], sensors: []},
    {medicationId: 'med-salbutamol', medicationType: 'rescue', usageList: [], sensors: [{mac: 'AA:BB:CC:00:00:02', batteryLevel: 75}]},
  ],
}
const USER = {id: 'u-1', email: 'ana@example.com', role: 'patient', givenName: 'Ana', familyName: 'Cruz', timeZone: 'Asia/Manila', plan: PLAN}
const EVENT = {id: 'e1', date: '2026-03-01T08:00:00.000Z', medicationId: 'med-fluticasone', medicationType: 'controller', symptoms: []}

/** The service's clock in these answers (its Date header): 14:00 on 2026-03-03 in Manila. The period is judged by it, not by the day the test runs. */
const SERVICE_NOW = 'Tue, 03 Mar 2026 06:00:00 GMT'

function replyUser(times = 1, user: object = USER): void {
  h.pool.intercept({path: '/api/users/u-1', method: 'GET'}).reply(200, user, {headers: {...JSON_HEADERS, date: SERVICE_NOW}}).times(times)
}

const sent = () => h.calls().map((c) => `${c.method} ${c.path.split('?')[0]}`)
const firstLine = (text: string) => text.trim().split('\n')[0]
const rescue = (medicationId: string) => cli('me', {'medication-id': medicationId, 'medication-type': 'rescue', date: '2026-03-01T08:00:00Z'})

describe('events add: the plan check', () => {
  it('a medication not on the plan is exit 2 after one read, naming the plan; the event is not sent', async () => {
    replyUser()
    const r = await h.run(EventsAdd, rescue('med-nope'))
    expect(r.code).toBe(2)
    expect(firstLine(r.stderr)).toBe(
      'Error: Medication med-nope is not on the plan of user u-1: the plan has med-fluticasone (controller), med-salbutamol (rescue); the event was not sent',
    )
    expect(r.stderr).toContain('Try this: See the plan: opsctl plan show u-1')
    expect(r.stderr).toContain('--no-plan-check')
    expect(sent()).toEqual(['GET /api/users/u-1'])
  })

  it("a controller recorded as rescue is refused with the plan's type", async () => {
    replyUser()
    const r = await h.run(EventsAdd, rescue('med-fluticasone'))
    expect(r.code).toBe(2)
    expect(firstLine(r.stderr)).toMatch(/^Error: Medication med-fluticasone is a controller medication on the plan of user u-1, not rescue: /)
    expect(sent()).toEqual(['GET /api/users/u-1'])
  })

  it('a medication of the plan is recorded: one read, then the write', async () => {
    replyUser()
    h.pool.intercept({path: '/api/users/u-1/events', method: 'POST'}).reply(201, {...EVENT, id: 'e2'}, {headers: JSON_HEADERS})
    const r = await h.run(EventsAdd, [...rescue('med-salbutamol'), '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).id).toBe('e2')
    expect(sent()).toEqual(['GET /api/users/u-1', 'POST /api/users/u-1/events'])
  })

  it('--no-plan-check sends the write alone', async () => {
    h.pool.intercept({path: '/api/users/u-1/events', method: 'POST'}).reply(201, {...EVENT, id: 'e3'}, {headers: JSON_HEADERS})
    const r = await h.run(EventsAdd, [...rescue('med-nope'), '--no-plan-check'])
    expect(r.code, r.stderr).toBe(0)
    expect(sent()).toEqual(['POST /api/users/u-1/events'])
    expect(h.calls()[0].body.medicationId).toBe('med-nope')
  })

  it('--dry-run says which read the check would make (or that it is skipped) and sends nothing', async () => {
    const dry = await h.run(EventsAdd, [...rescue('med-nope'), '--dry-run'])
    expect(dry.code).toBe(0)
    expect(dry.stderr).toContain('Plan check: would read GET /api/users/u-1 and refuse a medication or type not on the plan')
    expect(dry.stdout).toMatch(/^curl .*-X POST .*\/api\/users\/u-1\/events/m)
    const skipped = await h.run(EventsAdd, [...rescue('med-nope'), '--dry-run', '--no-plan-check'])
    expect(skipped.stderr).toContain('Plan check: skipped (--no-plan-check)')
    expect(h.calls()).toEqual([])
  })
})

describe('events update: the plan check', () => {
  it('a new type is checked against the medication the event already has (event and plan read together)', async () => {
    replyUser()
    h.pool.intercept({path: '/api/users/u-1/events/e1', method: 'GET'}).reply(200, EVENT, {headers: JSON_HEADERS})
    const r = await h.run(EventsUpdate, ['me', 'e1', '--medication-type', 'rescue'])
    expect(r.code).toBe(2)
    expect(firstLine(r.stderr)).toMatch(/med-fluticasone is a controller medication on the plan of user u-1, not rescue/)
    expect(sent().sort()).toEqual(['GET /api/users/u-1', 'GET /api/users/u-1/events/e1'])
  })

  it('a change that leaves the medication alone reads nothing', async () => {
    h.pool.intercept({path: '/api/users/u-1/events/e1', method: 'PUT'}).reply(204, '')
    const r = await h.run(EventsUpdate, ['me', 'e1', '--doses', '2'])
    expect(r.code, r.stderr).toBe(0)
    expect(sent()).toEqual(['PUT /api/users/u-1/events/e1'])
  })
})

describe('users inspect and plan show', () => {
  it('inspect --json is one document {user, plan, events, metrics}: the newest events and the last 7 days in the user zone, by the service clock', async () => {
    replyUser()
    const events = Array.from({length: 12}, (_, i) => ({...EVENT, id: `e${i}`}))
    h.pool.intercept({path: (p: string) => p.startsWith('/api/users/u-1/events?'), method: 'GET'}).reply(200, {events, paging: {}}, {headers: JSON_HEADERS})
    const day = {eventsRescue: 1, eventsRescueNight: 1, eventsControllerAdministered: 2, eventsControllerPrescribed: 2}
    h.pool
      .intercept({path: (p: string) => p.startsWith('/api/users/u-1/metrics?'), method: 'GET'})
      .reply(200, {timeZone: 'Asia/Manila', periods: {daily: [{date: '2026-03-01', values: day}]}}, {headers: JSON_HEADERS})
    const r = await h.run(UsersInspect, ['me', '--events', '3', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(Object.keys(doc)).toEqual(['user', 'plan', 'events', 'metrics'])
    expect(doc.user).toMatchObject({id: 'u-1', givenName: 'Ana'})
    expect(doc.user.plan).toBeUndefined()
    expect(doc.plan).toEqual(PLAN)
    expect(doc.events.map((e: any) => e.id)).toEqual(['e0', 'e1', 'e2'])
    expect(doc.metrics).toMatchObject({timeZone: 'Asia/Manila', rescueEvents: 1, rescueNightEvents: 1, adherencePercent: 100})
    const metrics = new URL(h.calls().find((c) => c.path.includes('/metrics'))!.path, 'http://x').searchParams
    expect(metrics.getAll('name')).toEqual(['eventsRescue', 'eventsRescueNight', 'eventsControllerAdministered', 'eventsControllerPrescribed'])
    // midnight in Manila (UTC+8) six days before the service's 2026-03-03 is 16:00 UTC the day before; the events are those of the same period
    expect(metrics.get('startDate')).toBe('2026-02-24T16:00:00.000Z')
    expect(metrics.get('endDate')).toBeNull()
    const eventsQuery = new URL(h.calls().find((c) => c.path.includes('/events'))!.path, 'http://x').searchParams
    expect(eventsQuery.get('startDate')).toBe(metrics.get('startDate'))
  })

  it('inspect --since DATE --until DATE reads that period, a date being midnight in the user zone', async () => {
    replyUser()
    h.pool.intercept({path: (p: string) => p.startsWith('/api/users/u-1/events?'), method: 'GET'}).reply(200, {events: [], paging: {}}, {headers: JSON_HEADERS})
    h.pool
      .intercept({path: (p: string) => p.startsWith('/api/users/u-1/metrics?'), method: 'GET'})
      .reply(200, {periods: {daily: []}}, {headers: JSON_HEADERS})
    const r = await h.run(UsersInspect, ['me', '--since', '2026-03-01', '--until', '2026-03-08', '--json'])
    expect(r.code, r.stderr).toBe(0)
    for (const path of ['/events', '/metrics']) {
      const query = new URL(h.calls().find((c) => c.path.includes(path))!.path, 'http://x').searchParams
      expect([query.get('startDate'), query.get('endDate')]).toEqual(['2026-02-28T16:00:00.000Z', '2026-03-07T16:00:00.000Z'])
    }

    expect(JSON.parse(r.stdout).metrics).toMatchObject({startDate: '2026-02-28T16:00:00.000Z', endDate: '2026-03-07T16:00:00.000Z'})
  })

  it('inspect refuses a period that ends before it starts, or a time it cannot read, before sending anything', async () => {
    const backwards = await h.run(UsersInspect, ['me', '--since', '2026-03-08', '--until', '2026-03-01'])
    expect([backwards.code, firstLine(backwards.stderr)]).toEqual([2, 'Error: --since must be before --until; nothing was sent'])
    const garbled = await h.run(UsersInspect, ['me', '--since', 'last tuesday'])
    expect([garbled.code, firstLine(garbled.stderr)]).toEqual([2, 'Error: --since: "last tuesday" is not a time'])
    expect(h.calls()).toEqual([])
  })

  it('inspect as a table fits 80 columns', async () => {
    replyUser()
    h.pool.intercept({path: (p: string) => p.startsWith('/api/users/u-1/events?'), method: 'GET'}).reply(200, {events: [EVENT], paging: {}}, {headers: JSON_HEADERS})
    h.pool
      .intercept({path: (p: string) => p.startsWith('/api/users/u-1/metrics?'), method: 'GET'})
      .reply(200, {periods: {daily: []}}, {headers: JSON_HEADERS})
    const r = await h.run(UsersInspect, ['me'])
    expect(r.code, r.stderr).toBe(0)
    for (const heading of ['Plan (2 medications)', 'Events (1, newest first)', 'Period: ']) expect(r.stdout).toContain(heading)
    expect(r.stdout).toMatch(/^Period: the last 7 days, 2026-02-25 00:00 to 2026-03-03 14:00 \(Asia\/Manila\)$/m)
    expect(r.stdout).toContain('2026-03-01 16:00') // 08:00Z in Manila
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80)
  })

  it("plan show lists the plan's medications with type, usage and sensors", async () => {
    replyUser(2)
    const table = await h.run(PlanShow, ['me'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/^med-fluticasone\tcontroller\t08:00 x2/m)
    expect(table.stdout).toMatch(/^med-salbutamol\trescue\t\tAA:BB:CC:00:00:02 \(battery 75%\)/m)
    const json = JSON.parse((await h.run(PlanShow, ['me', '--json'])).stdout)
    expect(json).toEqual({userId: 'u-1', medications: PLAN.medications})
  })

  it("someone else's data (403) says only that user may change it and to sign in as them, not to sign in again", async () => {
    h.pool
      .intercept({path: '/api/users/u-9', method: 'GET'})
      .reply(403, {code: 'FORBIDDEN', message: "You may not access another user's data"}, {headers: JSON_HEADERS})
    const r = await h.run(UsersInspect, ['u-9'])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('Try this: Only that user may change their data (a linked caregiver may only read it); sign in as them: opsctl users login --email <email>')
    expect(r.stderr).not.toContain('Sign in again')
    expect(sent()).toEqual(['GET /api/users/u-9'])
  })
})
