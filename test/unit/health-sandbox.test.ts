import {describe, expect, it} from 'vitest'

import {healthModule} from '../../src/sandbox/health/index.js'
import {bulkEvents, DEMO_USERS, seedHealth} from '../../src/sandbox/health/seed.js'
import {EventsQuery, MetricsQuery} from '../../src/services/health/operations.js'
import {answering} from '../fixtures/answering.js'
import {fakeContext, type FakeContext, refusal, request} from './health-fake-ctx.js'

const h = answering(healthModule)

const credentials = {
  role: 'patient',
  email: 'Ana@Example.com',
  password: 's3cret-pass',
  givenName: 'Ana',
  familyName: 'Cruz',
  timeZone: 'Asia/Manila',
}

async function newUser(given?: FakeContext, body: Record<string, unknown> = credentials) {
  const ctx = given ?? (await fakeContext())
  const reply = await h.createUser(request({body}), ctx)
  return {ctx, reply, user: reply.body as any}
}


describe('health sandbox: users and sessions', () => {
  it('createUser stores a scrypt hash, never the password, and answers with a session cookie', async () => {
    const {ctx, reply, user} = await newUser()
    expect(reply.status).toBe(201)
    expect(reply.headers?.['set-cookie']).toMatch(/^connect\.sid=/)
    expect(user).toMatchObject({email: 'ana@example.com', role: 'patient', timeZone: 'Asia/Manila', plan: {medications: []}})
    expect(user.id).toMatch(/^[\da-f]{24}$/)
    expect(user.password).toBeUndefined()
    const stored = JSON.stringify(await ctx.state.health.dump())
    expect(stored).not.toContain('s3cret-pass')
    expect((await ctx.state.health.users.get(user.id))!.password.hash).toMatch(/^[\w+/=]{40,}$/)
  })

  it('refuses a second account with the same email (any case)', async () => {
    const {ctx} = await newUser()
    const err = await refusal(() => h.createUser(request({body: {...credentials, email: 'ANA@example.com'}}), ctx))
    expect([err.status, err.code, err.fields[0].field]).toEqual([400, 'EMAIL_TAKEN', 'email'])
  })

  it('signIn: right password -> user + cookie; wrong password or unknown email -> 401', async () => {
    const {ctx, user} = await newUser()
    const ok = await h.signIn(request({body: {email: 'ana@example.com', password: 's3cret-pass'}}), ctx)
    expect(ok.status).toBe(200)
    expect((ok.body as any).id).toBe(user.id)
    expect(ok.headers?.['set-cookie']).toMatch(/^connect\.sid=/)
    expect((await refusal(() => h.signIn(request({body: {email: 'ana@example.com', password: 'nope'}}), ctx))).status).toBe(401)
    expect((await refusal(() => h.signIn(request({body: {email: 'bo@example.com', password: 'nope'}}), ctx))).status).toBe(401)
  })

  it("a user may read only their own data (403 on someone else's)", async () => {
    const {ctx, user} = await newUser()
    const {user: other} = await newUser(ctx, {...credentials, email: 'bo@example.com'})
    const err = await refusal(() => h.getUserById(request({params: {userId: other.id}, userId: user.id}), ctx))
    expect(err.status).toBe(403)
    const mine = await h.getUser(request({userId: user.id}), ctx)
    expect((mine.body as any).email).toBe('ana@example.com')
  })
})

describe('health sandbox: events', () => {
  const add = (ctx: any, userId: string, body: Record<string, unknown>) => h.addEvent(request({params: {userId}, userId, body}), ctx)
  const list = async (ctx: any, userId: string, raw: Record<string, unknown> = {}) =>
    (await h.getEvents(request({params: {userId}, userId, query: EventsQuery.parse(raw)}), ctx)).body as any

  it('derives nightEvent from the date in the user time zone and fills defaults', async () => {
    const {ctx, user} = await newUser()
    const night = (await add(ctx, user.id, {date: '2026-03-02T15:30:00Z', medicationId: 'm', medicationType: 'rescue'})).body as any
    const day = (await add(ctx, user.id, {date: '2026-03-02T23:30:00Z', medicationId: 'm', medicationType: 'rescue'})).body as any
    expect(night).toMatchObject({nightEvent: true, source: 'manual', doses: 1, preemptive: false, symptoms: [], addressConfirmed: false})
    expect(day.nightEvent).toBe(false) // 07:30 in Manila
    expect(night.createdDate).toBe('2026-03-05T04:00:00.000Z')
  })

  it('lists newest first with every filter', async () => {
    const {ctx, user} = await newUser()
    const mk = (date: string, extra: Record<string, unknown>) =>
      add(ctx, user.id, {date, medicationId: 'med-a', medicationType: 'rescue', ...extra})
    await mk('2026-03-01T02:00:00Z', {source: 'sensor', symptoms: ['cough'], addressConfirmed: true}) // 10:00 local
    await mk('2026-03-01T15:00:00Z', {preemptive: true, triggers: ['dust']}) // 23:00 local: night
    await mk('2026-03-02T02:00:00Z', {medicationId: 'med-b', medicationType: 'controller', symptoms: ['wheeze']})
    const dates = (r: any) => r.events.map((e: any) => e.date.slice(0, 13))
    expect(dates(await list(ctx, user.id))).toEqual(['2026-03-02T02', '2026-03-01T15', '2026-03-01T02'])
    expect(dates(await list(ctx, user.id, {startDate: '2026-03-01T10:00:00Z'}))).toEqual(['2026-03-02T02', '2026-03-01T15'])
    expect(dates(await list(ctx, user.id, {endDate: '2026-03-01T15:00:00Z'}))).toEqual(['2026-03-01T15', '2026-03-01T02'])
    expect(dates(await list(ctx, user.id, {medicationType: 'controller'}))).toEqual(['2026-03-02T02'])
    expect(dates(await list(ctx, user.id, {medicationIds: ['med-b', 'med-x']}))).toEqual(['2026-03-02T02'])
    expect(dates(await list(ctx, user.id, {nightEvent: 'true'}))).toEqual(['2026-03-01T15'])
    expect(dates(await list(ctx, user.id, {nightEvent: 'false'}))).toHaveLength(2)
    expect(dates(await list(ctx, user.id, {preemptive: 'true'}))).toEqual(['2026-03-01T15'])
    expect(dates(await list(ctx, user.id, {source: 'sensor'}))).toEqual(['2026-03-01T02'])
    expect(dates(await list(ctx, user.id, {symptoms: ['wheeze', 'cough']}))).toEqual(['2026-03-02T02', '2026-03-01T02'])
    expect(dates(await list(ctx, user.id, {triggers: 'dust'}))).toEqual(['2026-03-01T15'])
    expect(dates(await list(ctx, user.id, {addressConfirmed: 'true'}))).toEqual(['2026-03-01T02'])
    expect(dates(await list(ctx, user.id, {addressConfirmed: 'false'}))).toHaveLength(2)
  })

  it('pages of 50 with opaque next/previous tokens that walk the whole list once', async () => {
    const {ctx, user} = await newUser()
    await bulkEvents(ctx, (await ctx.state.health.users.get(user.id))!, {count: 120})
    const p1 = await list(ctx, user.id)
    expect(p1.events).toHaveLength(50)
    expect(p1.paging.previous).toBeUndefined()
    const p2 = await list(ctx, user.id, {pagingToken: p1.paging.next})
    const p3 = await list(ctx, user.id, {pagingToken: p2.paging.next})
    expect([p2.events.length, p3.events.length]).toEqual([50, 20])
    expect(p3.paging.next).toBeUndefined()
    const ids = [...p1.events, ...p2.events, ...p3.events].map((e: any) => e.id)
    expect(new Set(ids).size).toBe(120)
    const all = [...p1.events, ...p2.events, ...p3.events].map((e: any) => e.date)
    expect(all).toEqual([...all].sort().reverse())
    const back = await list(ctx, user.id, {pagingToken: p3.paging.previous})
    expect(back.events.map((e: any) => e.id)).toEqual(p2.events.map((e: any) => e.id))
    expect(back.paging.next).toBeDefined()
    // walking back to the start: the first page again, with nothing before it
    const start = await list(ctx, user.id, {pagingToken: back.paging.previous})
    expect(start.events.map((e: any) => e.id)).toEqual(p1.events.map((e: any) => e.id))
    expect([start.paging.previous, typeof start.paging.next]).toEqual([undefined, 'string'])
    const err = await refusal(() =>
      h.getEvents(request({params: {userId: user.id}, userId: user.id, query: {pagingToken: 'garbage'}}), ctx),
    )
    expect([err.status, err.code]).toEqual([400, 'INVALID_PAGING_TOKEN'])
  })

  it('a filtered walk pages only matching events', async () => {
    const {ctx, user} = await newUser()
    await bulkEvents(ctx, (await ctx.state.health.users.get(user.id))!, {count: 400}) // every 4th is a controller event: 100
    let token: string | undefined
    let seen = 0
    do {
      const page = await list(ctx, user.id, {medicationType: 'controller', ...(token ? {pagingToken: token} : {})})
      expect(page.events.every((e: any) => e.medicationType === 'controller')).toBe(true)
      seen += page.events.length
      token = page.paging.next
    } while (token)

    expect(seen).toBe(100)
  })

  it('update replaces the fields sent, re-derives nightEvent and keeps the order; delete removes', async () => {
    const {ctx, user} = await newUser()
    const e = (await add(ctx, user.id, {date: '2026-03-01T02:00:00Z', medicationId: 'm', medicationType: 'rescue'})).body as any
    ctx.clock.advance(60_000)
    const upd = await h.updateEvent(
      request({
        params: {userId: user.id, eventId: e.id},
        userId: user.id,
        body: {date: '2026-03-01T16:00:00Z', doses: 3, symptoms: ['cough']},
      }),
      ctx,
    )
    expect(upd.status).toBe(204)
    const got = (await h.getEventById(request({params: {userId: user.id, eventId: e.id}, userId: user.id}), ctx)).body as any
    expect(got).toMatchObject({date: '2026-03-01T16:00:00.000Z', doses: 3, symptoms: ['cough'], nightEvent: true, medicationId: 'm'})
    expect(got.updatedDate).toBe('2026-03-05T04:01:00.000Z')
    expect((await h.deleteEvent(request({params: {userId: user.id, eventId: e.id}, userId: user.id}), ctx)).status).toBe(204)
    const gone = await refusal(() => h.getEventById(request({params: {userId: user.id, eventId: e.id}, userId: user.id}), ctx))
    expect(gone.status).toBe(404)
  })
})

describe('health sandbox: plan, groups, metrics', () => {
  const call = (name: string, ctx: any, userId: string, params: Record<string, string>, body?: unknown) =>
    h[name](request({params: {userId, ...params}, userId, body}), ctx)

  it('plan medications and sensors; a MAC on another medication is refused', async () => {
    const {ctx, user} = await newUser()
    const {user: other} = await newUser(ctx, {...credentials, email: 'bo@example.com'})
    expect(
      (await call('addPlanMedication', ctx, user.id, {}, {medicationId: 'med-a', usageList: [{hour: 8, minute: 0, doses: 2}]})).status,
    ).toBe(201)
    expect((await call('addPlanSensor', ctx, user.id, {medicationId: 'med-a'}, {mac: 'AA:BB:CC:DD:EE:01', model: 'x'})).status).toBe(201)
    const taken = await refusal(() =>
      call('addPlanMedication', ctx, other.id, {}, {medicationId: 'med-b', sensors: [{mac: 'AA:BB:CC:DD:EE:01', model: 'x'}]}),
    )
    expect([taken.status, taken.code, taken.fields[0].field]).toEqual([400, 'SENSOR_IN_USE', 'sensors.0.mac'])
    await call('addPlanMedication', ctx, user.id, {}, {medicationId: 'med-c'})
    const onTwo = await refusal(() => call('addPlanSensor', ctx, user.id, {medicationId: 'med-c'}, {mac: 'AA:BB:CC:DD:EE:01', model: 'x'}))
    expect(onTwo.status).toBe(400)
    const dup = await refusal(() => call('addPlanMedication', ctx, user.id, {}, {medicationId: 'med-a'}))
    expect(dup.code).toBe('MEDICATION_ON_PLAN')

    expect(
      (await call('patchPlanMedication', ctx, user.id, {medicationId: 'med-a'}, {usageList: [{hour: 9, minute: 30, doses: 1}]})).status,
    ).toBe(204)
    const me = (await h.getUser(request({userId: user.id}), ctx)).body as any
    expect(me.plan.medications[0]).toEqual({
      medicationId: 'med-a',
      usageList: [{hour: 9, minute: 30, doses: 1}],
      sensors: [{mac: 'AA:BB:CC:DD:EE:01', model: 'x'}],
    })
    expect((await call('deletePlanSensor', ctx, user.id, {medicationId: 'med-a', mac: 'aa:bb:cc:dd:ee:01'})).status).toBe(204)
    expect((await refusal(() => call('deletePlanSensor', ctx, user.id, {medicationId: 'med-a', mac: 'AA:BB:CC:DD:EE:01'}))).status).toBe(
      404,
    )
    expect((await call('deletePlanMedication', ctx, user.id, {medicationId: 'med-a'})).status).toBe(204)
    expect((await refusal(() => call('patchPlanMedication', ctx, user.id, {medicationId: 'med-a'}, {}))).status).toBe(404)
  })

  it('group config by id or name; unknown -> 404', async () => {
    const ctx = await fakeContext()
    const byName = (await h.getGroupConfig(request({params: {idOrName: 'demo-clinic'}}), ctx)).body as any
    const byId = (await h.getGroupConfig(request({params: {idOrName: byName.id}}), ctx)).body as any
    expect(byId.name).toBe('demo-clinic')
    expect(byName.medications.length).toBeGreaterThanOrEqual(3)
    expect((await refusal(() => h.getGroupConfig(request({params: {idOrName: 'nope'}}), ctx))).status).toBe(404)
  })

  it('getMetrics: 400 for an unsupported pair, default range of 30 days before now', async () => {
    const {ctx, user} = await newUser()
    const q = (raw: Record<string, unknown>) => request({params: {userId: user.id}, userId: user.id, query: MetricsQuery.parse(raw)})
    const bad = await refusal(() => h.getMetrics(q({name: 'eventsRescue', period: 'weekly'}), ctx))
    expect([bad.status, bad.code]).toEqual([400, 'UNSUPPORTED_METRIC'])
    expect(bad.message).toContain('valid names for weekly: adherencePercent')
    const ok = (await h.getMetrics(q({name: 'eventsRescue', period: 'daily'}), ctx)).body as any
    expect(ok.endDate).toBe('2026-03-05T04:00:00.000Z')
    expect(ok.startDate).toBe('2026-02-03T04:00:00.000Z')
    expect(ok.periods.daily).toHaveLength(31) // 2026-02-03 .. 2026-03-05 local days
  })

  it('seed: demo patient and caregiver with known passwords, a plan and weeks of events', async () => {
    const ctx = await fakeContext()
    await seedHealth(ctx)
    const login = await h.signIn(request({body: {email: DEMO_USERS.patient.email, password: DEMO_USERS.patient.password}}), ctx)
    const patient = login.body as any
    expect(patient.plan.medications.map((m: any) => m.medicationId)).toEqual(['med-fluticasone', 'med-salbutamol'])
    expect(await ctx.state.health.events.count(patient.id)).toBeGreaterThan(50)
    expect(
      (await h.signIn(request({body: {email: DEMO_USERS.caregiver.email, password: DEMO_USERS.caregiver.password}}), ctx)).status,
    ).toBe(200)
  })
})
