/**
 * One handler per health operation: plain functions over `ctx.state.health` (the module's
 * repositories: a changed user is saved with `users.set`), each returning the
 * answer's body (the core sends it with the row's success status). The core has
 * already checked the session (req.userId), replaced `me`, refused someone else's userId (403)
 * and validated the body and query with the operation's schemas. Handlers still refuse another
 * user's data themselves, so they hold the rule when called directly (unit tests).
 *
 * Errors the spec does not list are answered as a real REST service would: 404 for a record that
 * does not exist, 400 (with a code and the field) for a refused value.
 */
import {randomBytes, scryptSync, timingSafeEqual} from 'node:crypto'

import type {HandlersFor, SandboxContext, SandboxRequest} from '../types.js'
import type {HealthStore, PasswordHash, StoredUser} from './state.js'

import {isMetricProblem, METRICS_DEFAULT_RANGE_DAYS, planMetricRequest, validNamesText} from '../../services/health/metrics.js'
import {type Event, type healthService, type PlanMedication, type User} from '../../services/health/operations.js'
import {Reply, SandboxError} from '../types.js'
import {type Access, accessibleUser} from './access.js'
import {computeMetrics} from './metrics.js'
import {isNightEvent} from './time.js'

const DAY_MS = 86_400_000
/** days before a day that its rescue baseline averages (metrics.ts) */
const BASELINE_DAYS = 14

/** The health module's repositories. */
export function health(ctx: SandboxContext): HealthStore {
  return ctx.state.health
}

/** Saves a user changed in place (plan, sensors, ...): the whole record, unknown fields included. */
async function saveUser(ctx: SandboxContext, user: StoredUser): Promise<void> {
  await health(ctx).users.set(user.id, user)
}

// ---------------------------------------------------------------------------------------------
// passwords
// ---------------------------------------------------------------------------------------------

export function hashPassword(password: string): PasswordHash {
  const salt = randomBytes(16)
  return {salt: salt.toString('base64'), hash: scryptSync(password, salt, 32).toString('base64')}
}

export function verifyPassword(password: string, stored: PasswordHash): boolean {
  const expected = Buffer.from(stored.hash, 'base64')
  const actual = scryptSync(password, Buffer.from(stored.salt, 'base64'), expected.length)
  return timingSafeEqual(actual, expected)
}

/** A user as the API shows it: everything but the password hash. */
export function publicUser(user: StoredUser): User {
  const {password: _password, ...rest} = user
  return rest as User
}

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

function notFound(what: string, field: string): SandboxError {
  return new SandboxError(404, 'NOT_FOUND', `${what} not found`, [{field, description: 'not found'}])
}

/** The user addressed by the path, if the caller may reach them for `access` (./access.ts): 404 unknown, 403 not allowed. */
async function userFor(req: SandboxRequest, ctx: SandboxContext, access: Access): Promise<StoredUser> {
  if (!req.userId) throw new SandboxError(401, 'UNAUTHORIZED', 'A valid session is required')
  return accessibleUser(ctx, req.userId, req.params.userId ?? req.userId, access)
}

const readableUser = async (req: SandboxRequest, ctx: SandboxContext) => userFor(req, ctx, 'read')
const ownUser = async (req: SandboxRequest, ctx: SandboxContext) => userFor(req, ctx, 'write')

async function findEvent(ctx: SandboxContext, userId: string, eventId: string): Promise<Event> {
  const event = await health(ctx).events.get(userId, eventId)
  if (!event) throw notFound(`Event ${eventId}`, 'eventId')
  return event
}

/** Every sensor MAC on any plan, with where it is attached. */
async function sensorOwner(ctx: SandboxContext, mac: string): Promise<undefined | {medicationId: string; userId: string}> {
  for (const user of await health(ctx).users.values()) {
    for (const med of user.plan.medications) {
      if ((med.sensors ?? []).some((s) => s.mac === mac)) return {userId: user.id, medicationId: med.medicationId}
    }
  }

  return undefined
}

/** A MAC may be on one medication only (any user's plan): 400 otherwise. */
async function assertMacsFree(ctx: SandboxContext, macs: string[], own: {medicationId: string; userId: string}, field: (i: number) => string): Promise<void> {
  const seen = new Set<string>()
  for (const [i, mac] of macs.entries()) {
    const owner = await sensorOwner(ctx, mac)
    const elsewhere = owner && (owner.userId !== own.userId || owner.medicationId !== own.medicationId)
    if (elsewhere || seen.has(mac)) {
      throw new SandboxError(400, 'SENSOR_IN_USE', `Sensor ${mac} is already attached to another medication`, [
        {field: field(i), description: 'already attached to another medication'},
      ])
    }

    seen.add(mac)
  }
}

function findMedication(user: StoredUser, medicationId: string): PlanMedication {
  const med = user.plan.medications.find((m) => m.medicationId === medicationId)
  if (!med) throw notFound(`Medication ${medicationId} on the plan`, 'medicationId')
  return med
}

/** A medication's type in the groups' catalogues (rescue, controller), so that a plan says it (the emulator's choice). */
export async function catalogueType(ctx: SandboxContext, medicationId: string): Promise<string | undefined> {
  for (const group of await health(ctx).groups.values()) {
    const type = group.medications.find((m) => m.id === medicationId)?.type
    if (type) return type
  }

  return undefined
}

/** The user, with the cookie of a new session. */
async function signedIn(ctx: SandboxContext, user: StoredUser): Promise<Reply<User>> {
  const sid = await ctx.sessions.create(user.id)
  return new Reply(publicUser(user), {headers: ctx.sessions.cookieHeader(sid)})
}

/** Builds a stored event from a validated Event_2 body (unknown fields kept). */
export function newEvent(ctx: SandboxContext, user: StoredUser, body: Record<string, unknown>): Event {
  const now = ctx.clock.now().toISOString()
  const date = new Date(body.date as string).toISOString()
  return {
    ...body,
    id: ctx.hex(24),
    date,
    medicationId: body.medicationId as string,
    medicationType: body.medicationType as string,
    source: (body.source as string | undefined) ?? 'manual',
    doses: (body.doses as number | undefined) ?? 1,
    preemptive: (body.preemptive as boolean | undefined) ?? false,
    symptoms: (body.symptoms as string[] | undefined) ?? [],
    triggers: (body.triggers as string[] | undefined) ?? [],
    addressConfirmed: (body.addressConfirmed as boolean | undefined) ?? false,
    nightEvent: isNightEvent(date, user.timeZone),
    createdDate: now,
    updatedDate: now,
  }
}

// ---------------------------------------------------------------------------------------------
// handlers
// ---------------------------------------------------------------------------------------------

export const healthHandlers: HandlersFor<typeof healthService> = {
  async createUser(req, ctx) {
    const body = req.body as Record<string, unknown> & {email: string; password: string}
    const state = health(ctx)
    const email = body.email.trim().toLowerCase()
    if ([...await state.users.values()].some((u) => u.email === email)) {
      throw new SandboxError(400, 'EMAIL_TAKEN', `An account with email ${email} already exists`, [
        {field: 'email', description: 'already registered'},
      ])
    }

    const {password, ...rest} = body
    const user: StoredUser = {
      ...rest,
      id: ctx.hex(24),
      email,
      role: body.role as string,
      givenName: body.givenName as string,
      familyName: body.familyName as string,
      language: (body.language as string | undefined) ?? req.language ?? 'en-US',
      timeZone: (body.timeZone as string | undefined) ?? 'UTC',
      createdDate: ctx.clock.now().toISOString(),
      password: hashPassword(password),
      plan: {medications: []},
    }
    await state.users.set(user.id, user)
    return signedIn(ctx, user)
  },

  async signIn(req, ctx) {
    const body = req.body as {email: string; password: string}
    const email = body.email.trim().toLowerCase()
    const user = [...await health(ctx).users.values()].find((u) => u.email === email)
    // same answer for an unknown email and a wrong password
    if (!user || !verifyPassword(body.password, user.password)) {
      throw new SandboxError(401, 'INVALID_CREDENTIALS', 'Wrong email or password')
    }

    return signedIn(ctx, user)
  },

  async getUser(req, ctx) {
    return publicUser(await readableUser({...req, params: {userId: req.userId ?? ''}}, ctx))
  },

  async getUserById(req, ctx) {
    return publicUser(await readableUser(req, ctx))
  },

  async addEvent(req, ctx) {
    const user = await ownUser(req, ctx)
    const event = newEvent(ctx, user, req.body as Record<string, unknown>)
    await health(ctx).events.put(user.id, event)
    return event
  },

  async getEvents(req, ctx) {
    const user = await readableUser(req, ctx)
    const q = req.query
    if (q.startDate && q.endDate && Date.parse(q.startDate) > Date.parse(q.endDate)) {
      throw new SandboxError(400, 'INVALID_RANGE', 'startDate is after endDate', [{field: 'startDate', description: 'after endDate'}])
    }

    return health(ctx).events.page(user.id, q)
  },

  async getEventById(req, ctx) {
    const user = await readableUser(req, ctx)
    return findEvent(ctx, user.id, req.params.eventId)
  },

  async updateEvent(req, ctx) {
    const user = await ownUser(req, ctx)
    const current = await findEvent(ctx, user.id, req.params.eventId)
    const body = req.body as Record<string, unknown>
    const {id: _id, nightEvent: _n, createdDate: _c, updatedDate: _u, ...changes} = body
    const date = typeof changes.date === 'string' ? new Date(changes.date).toISOString() : current.date
    const next: Event = {
      ...current,
      ...changes,
      date,
      nightEvent: isNightEvent(date, user.timeZone),
      updatedDate: ctx.clock.now().toISOString(),
    }
    await health(ctx).events.put(user.id, next)
  },

  async deleteEvent(req, ctx) {
    const user = await ownUser(req, ctx)
    if (!await health(ctx).events.delete(user.id, req.params.eventId)) throw notFound(`Event ${req.params.eventId}`, 'eventId')
  },

  async getGroupConfig(req, ctx) {
    const key = req.params.idOrName
    const groups = [...await health(ctx).groups.values()]
    const group = groups.find((g) => g.id === key) ?? groups.find((g) => g.name.toLowerCase() === key.toLowerCase())
    if (!group) throw notFound(`Group ${key}`, 'idOrName')
    return group
  },

  async getMetrics(req, ctx) {
    const user = await readableUser(req, ctx)
    const q = req.query as {endDate?: string; name: string[]; period?: string[]; startDate?: string}
    const plan = planMetricRequest(q.name, q.period ?? [])
    if (isMetricProblem(plan)) {
      throw new SandboxError(400, 'UNSUPPORTED_METRIC', [plan.message, validNamesText(plan)].filter(Boolean).join('; '), [{field: 'name', description: 'unsupported for the period'}])
    }

    const end = q.endDate ? new Date(q.endDate) : ctx.clock.now()
    const start = q.startDate ? new Date(q.startDate) : new Date(end.getTime() - METRICS_DEFAULT_RANGE_DAYS * DAY_MS)
    if (start > end)
      throw new SandboxError(400, 'INVALID_RANGE', 'startDate is after endDate', [{field: 'startDate', description: 'after endDate'}])
    if (end.getTime() - start.getTime() > 800 * DAY_MS) {
      throw new SandboxError(400, 'RANGE_TOO_LONG', 'The range may span at most 800 days', [{field: 'startDate', description: 'too early'}])
    }

    const state = health(ctx)
    const periods = computeMetrics({
      timeZone: user.timeZone,
      // the range, the 14 days before it (rescue baseline) and a day each side for the time zone
      events: await state.events.between(
        user.id,
        new Date(start.getTime() - (BASELINE_DAYS + 2) * DAY_MS).toISOString(),
        new Date(end.getTime() + DAY_MS).toISOString(),
      ),
      plan: user.plan.medications,
      act: await state.act.get(user.id) ?? [],
      groups: [...await state.groups.values()],
      start,
      end,
      byPeriod: plan.byPeriod,
    })
    return {startDate: start.toISOString(), endDate: end.toISOString(), timeZone: user.timeZone, periods, paging: {}}
  },

  async addPlanMedication(req, ctx) {
    const user = await ownUser(req, ctx)
    const body = req.body as Record<string, unknown> & PlanMedication
    if (user.plan.medications.some((m) => m.medicationId === body.medicationId)) {
      throw new SandboxError(400, 'MEDICATION_ON_PLAN', `Medication ${body.medicationId} is already on the plan`, [
        {field: 'medicationId', description: 'already on the plan'},
      ])
    }

    const sensors = body.sensors ?? []
    await assertMacsFree(
      ctx,
      sensors.map((s) => s.mac),
      {userId: user.id, medicationId: body.medicationId},
      (i) => `sensors.${i}.mac`,
    )
    const medicationType = body.medicationType ?? await catalogueType(ctx, body.medicationId)
    user.plan.medications.push({...body, ...(medicationType ? {medicationType} : {}), usageList: body.usageList ?? [], sensors})
    await saveUser(ctx, user)
  },

  async patchPlanMedication(req, ctx) {
    const user = await ownUser(req, ctx)
    const med = findMedication(user, req.params.medicationId)
    const body = req.body as Partial<PlanMedication> & Record<string, unknown>
    if (body.sensors) {
      await assertMacsFree(
        ctx,
        body.sensors.map((s) => s.mac),
        {userId: user.id, medicationId: med.medicationId},
        (i) => `sensors.${i}.mac`,
      )
    }

    const {medicationId: _ignored, ...changes} = body
    Object.assign(med, changes)
    await saveUser(ctx, user)
  },

  async deletePlanMedication(req, ctx) {
    const user = await ownUser(req, ctx)
    const med = findMedication(user, req.params.medicationId)
    user.plan.medications = user.plan.medications.filter((m) => m !== med)
    await saveUser(ctx, user)
  },

  async addPlanSensor(req, ctx) {
    const user = await ownUser(req, ctx)
    const med = findMedication(user, req.params.medicationId)
    const sensor = req.body as PlanMedication['sensors'][number]
    if ((med.sensors ?? []).some((s) => s.mac === sensor.mac)) {
      throw new SandboxError(400, 'SENSOR_ON_MEDICATION', `Sensor ${sensor.mac} is already attached to ${med.medicationId}`, [
        {field: 'mac', description: 'already attached to this medication'},
      ])
    }

    await assertMacsFree(ctx, [sensor.mac], {userId: user.id, medicationId: med.medicationId}, () => 'mac')
    med.sensors = [...(med.sensors ?? []), sensor]
    await saveUser(ctx, user)
  },

  async deletePlanSensor(req, ctx) {
    const user = await ownUser(req, ctx)
    const med = findMedication(user, req.params.medicationId)
    const mac = req.params.mac.toUpperCase().replaceAll('-', ':')
    const sensors = med.sensors ?? []
    if (!sensors.some((s) => s.mac === mac)) throw notFound(`Sensor ${mac} on ${med.medicationId}`, 'mac')
    med.sensors = sensors.filter((s) => s.mac !== mac)
    await saveUser(ctx, user)
  },
}
