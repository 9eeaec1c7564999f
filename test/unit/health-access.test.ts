/**
 * The sandbox's access rule for health data (src/sandbox/health/access.ts): own data to read and
 * change, a linked caregiver's patient to read only, anyone else's 403, an unknown id 404. Both
 * through the handlers (as unit tests call them) and through the core's route check.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createSandbox} from '../../src/sandbox/core/server.js'
import {accessibleUser} from '../../src/sandbox/health/access.js'
import {healthModule} from '../../src/sandbox/health/index.js'
import {DEMO_USERS, seedHealth} from '../../src/sandbox/health/seed.js'
import {MetricsQuery} from '../../src/services/health/operations.js'
import {answering} from '../fixtures/answering.js'
import {fakeContext, refusal, request} from './health-fake-ctx.js'

const h = answering(healthModule)


/** One seeded sandbox state for the file (scrypt sign-ins are slow); a test that changes it puts it back. */
let world: ReturnType<typeof seedWorld> | undefined
const seeded = () => (world ??= seedWorld())

async function seedWorld() {
  const ctx = await fakeContext()
  await seedHealth(ctx)
  const signIn = async (who: {email: string; password: string}) =>
    ((await h.signIn(request({body: {email: who.email, password: who.password}}), ctx)).body as any).id as string
  const patient = await signIn(DEMO_USERS.patient)
  const caregiver = await signIn(DEMO_USERS.caregiver)
  const stranger = ((await h.createUser(request({body: {role: 'patient', email: 'x@example.com', password: 'pw-123456', givenName: 'X', familyName: 'Y'}}), ctx)).body as any).id as string
  return {caregiver, ctx, patient, stranger}
}

describe('health sandbox: access to another user', () => {
  it('the seeded caregiver is linked to the seeded patient and reads their user, plan, events and metrics', async () => {
    const {caregiver, ctx, patient} = await seeded()
    expect((await ctx.state.health.users.get(caregiver))!.caregiverOf).toEqual([patient])
    const as = (params: Record<string, string>, query: any = {}) => request({params: {userId: patient, ...params}, query, userId: caregiver})
    const user = (await h.getUserById(as({}), ctx)).body as any
    expect(user.plan.medications.map((m: any) => [m.medicationId, m.medicationType])).toEqual([
      ['med-fluticasone', 'controller'],
      ['med-salbutamol', 'rescue'],
    ])
    const events = (await h.getEvents(as({}), ctx)).body as any
    expect(events.events.length).toBeGreaterThan(10)
    const eventId = events.events[0].id
    expect(((await h.getEventById(as({eventId}), ctx)).body as any).id).toBe(eventId)
    const metrics = (await h.getMetrics(as({}, MetricsQuery.parse({name: 'eventsRescue', period: 'daily'})), ctx)).body as any
    expect(metrics.periods.daily.length).toBeGreaterThan(0)
  })

  it('a linked caregiver may not change the patient data: 403, and nothing is stored', async () => {
    const {caregiver, ctx, patient} = await seeded()
    const before = await ctx.state.health.events.count(patient)
    const body = {date: '2026-03-01T08:00:00Z', medicationId: 'med-salbutamol', medicationType: 'rescue'}
    const err = await refusal(() => h.addEvent(request({body, params: {userId: patient}, userId: caregiver}), ctx))
    expect([err.status, err.code, err.message]).toEqual([403, 'FORBIDDEN', "A linked caregiver may read this user's data but not change it"])
    const plan = await refusal(() => h.deletePlanMedication(request({params: {userId: patient, medicationId: 'med-salbutamol'}, userId: caregiver}), ctx))
    expect(plan.status).toBe(403)
    expect(await ctx.state.health.events.count(patient)).toBe(before)
    expect((await ctx.state.health.users.get(patient))!.plan.medications).toHaveLength(2)
  })

  it("an unrelated user gets 403 on the patient's data, and the patient gets 403 on the caregiver's", async () => {
    const {caregiver, ctx, patient, stranger} = await seeded()
    const read = await refusal(() => h.getUserById(request({params: {userId: patient}, userId: stranger}), ctx))
    expect([read.status, read.message]).toEqual([403, "You may not access another user's data"])
    expect((await refusal(() => h.getEvents(request({params: {userId: patient}, userId: stranger}), ctx))).status).toBe(403)
    // the link goes one way
    expect((await refusal(() => h.getUserById(request({params: {userId: caregiver}, userId: patient}), ctx))).status).toBe(403)
  })

  it('an id no user has is 404, whoever asks', async () => {
    const {caregiver, ctx, stranger} = await seeded()
    for (const caller of [caregiver, stranger]) {
      const err = await refusal(() => h.getUserById(request({params: {userId: 'ffffffffffffffffffffffff'}, userId: caller}), ctx))
      expect([err.status, err.code]).toEqual([404, 'NOT_FOUND'])
    }

    await expect(accessibleUser(ctx, stranger, '__proto__', 'read')).rejects.toThrow(expect.objectContaining({status: 404}))
  })

  it('a malformed caregiverOf (not a list of ids) links nobody', async () => {
    const {caregiver, ctx, patient} = await seeded()
    const {users} = ctx.state.health
    const record = (await users.get(caregiver))!
    await users.set(caregiver, {...record, caregiverOf: patient})
    try {
      await expect(accessibleUser(ctx, caregiver, patient, 'read')).rejects.toThrow(expect.objectContaining({status: 403}))
    } finally {
      await users.set(caregiver, record)
    }
  })
})

describe('health sandbox: the access rule on the routes', () => {
  let sandbox: Awaited<ReturnType<typeof createSandbox>>
  const V = {'x-ph-api-version': '3.14.0', 'content-type': 'application/json'}
  beforeAll(async () => {
    sandbox = await createSandbox({port: 0, seed: true})
  })
  afterAll(async () => {
    await sandbox.close()
  })

  async function cookieOf(who: {email: string; password: string}): Promise<string> {
    const res = await fetch(`${sandbox.origin}/api/sign-in`, {body: JSON.stringify(who), headers: V, method: 'POST'})
    return res.headers.get('set-cookie')!.split(';')[0]
  }

  it('the core applies the same rule before a handler runs: read 200, write 403, unknown 404', async () => {
    const caregiver = await cookieOf(DEMO_USERS.caregiver)
    const me = await (await fetch(`${sandbox.origin}/api/users/me`, {headers: {...V, cookie: caregiver}})).json()
    const patientId = me.caregiverOf[0]
    const headers = {...V, cookie: caregiver}
    expect((await fetch(`${sandbox.origin}/api/users/${patientId}/events`, {headers})).status).toBe(200)
    const write = await fetch(`${sandbox.origin}/api/users/${patientId}/plan/medication/med-salbutamol`, {headers, method: 'DELETE'})
    expect(write.status).toBe(403)
    expect((await fetch(`${sandbox.origin}/api/users/ffffffffffffffffffffffff`, {headers})).status).toBe(404)
  })
})
