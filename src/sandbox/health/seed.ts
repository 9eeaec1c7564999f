/**
 * Demo data (`seed`) and fast bulk creation of events (for the 20,000-event benchmark), both
 * deterministic: the same call on the same clock gives the same dates and values.
 */
import {setImmediate} from 'node:timers/promises'

import type {Event} from '../../services/health/operations.js'
import type {SandboxContext} from '../types.js'
import type {StoredUser} from './state.js'

import {SYMPTOMS, TRIGGERS} from '../../services/health/operations.js'
import {linkedPatients} from './access.js'
import {hashPassword, health, newEvent} from './handlers.js'

const DAY_MS = 86_400_000

/** Published demo accounts of `sandbox start --seed`: local test data, nothing else. */
export const DEMO_USERS = {
  patient: {email: 'patient@demo-clinic.test', password: 'demo-patient-pass', givenName: 'Maria', familyName: 'Santos'},
  caregiver: {email: 'caregiver@demo-clinic.test', password: 'demo-caregiver-pass', givenName: 'Jose', familyName: 'Santos'},
} as const

export interface BulkEventsOptions {
  count: number
  /** default: 30 days before end */
  start?: Date
  /** default: now (sandbox clock) */
  end?: Date
}

/** The most events one request may generate: a larger count is answered 400 (call again for more). */
export const MAX_GENERATED_EVENTS = 100_000
/** Events written per transaction while generating; the sandbox answers other requests between batches. */
const GENERATION_BATCH = 1000

/**
 * The i-th of `count` events evenly spread over [start, end], newest at `end`: every fourth a
 * controller event of 2 doses, the others rescue events alternating sensor/manual, with
 * symptoms and triggers cycling through their lists.
 */
function bulkEvent(ctx: SandboxContext, user: StoredUser, i: number, count: number, range: {end: number; span: number}): Event {
  const at = count === 1 ? range.end : range.end - Math.floor((range.span * i) / (count - 1))
  const controller = i % 4 === 0
  return newEvent(ctx, user, {
    date: new Date(at).toISOString(),
    medicationId: controller ? 'med-fluticasone' : 'med-salbutamol',
    medicationType: controller ? 'controller' : 'rescue',
    source: i % 2 === 0 ? 'sensor' : 'manual',
    doses: controller ? 2 : 1,
    preemptive: i % 7 === 0,
    symptoms: controller ? [] : [SYMPTOMS[i % SYMPTOMS.length]],
    triggers: controller ? [] : [TRIGGERS[i % TRIGGERS.length]],
    addressConfirmed: i % 3 === 0,
  })
}

function rangeOf(ctx: SandboxContext, options: BulkEventsOptions): {end: number; span: number} {
  const end = options.end ?? ctx.clock.now()
  const start = options.start ?? new Date(end.getTime() - 30 * DAY_MS)
  return {end: end.getTime(), span: Math.max(0, end.getTime() - start.getTime())}
}

/** Creates `count` events (see bulkEvent) in the caller's transaction, at once. */
export async function bulkEvents(ctx: SandboxContext, user: StoredUser, options: BulkEventsOptions): Promise<number> {
  const range = rangeOf(ctx, options)
  const {events} = health(ctx)
  for (let i = 0; i < options.count; i++) await events.put(user.id, bulkEvent(ctx, user, i, options.count, range))
  return options.count
}

/**
 * Creates `count` events (see bulkEvent) for the control route, in batches of GENERATION_BATCH,
 * each committed in its own transaction, yielding to other requests between them, so a large
 * count never holds the sandbox up. Other requests may see the events appear batch by batch;
 * the promise settles once every batch is committed. When a batch fails, the events of the
 * batches before it are deleted before the error is thrown: the generation leaves all or nothing.
 */
export async function generateEvents(ctx: SandboxContext, user: StoredUser, options: BulkEventsOptions): Promise<number> {
  const range = rangeOf(ctx, options)
  const {events} = health(ctx)
  const created: string[] = []
  try {
    for (let from = 0; from < options.count; from += GENERATION_BATCH) {
      await ctx.commitNow(async () => {
        for (let i = from; i < Math.min(from + GENERATION_BATCH, options.count); i++) {
          const event = bulkEvent(ctx, user, i, options.count, range)
          await events.put(user.id, event)
          created.push(event.id)
        }
      })
      await setImmediate()
    }
  } catch (error) {
    await ctx.commitNow(async () => {
      for (const id of created) await events.delete(user.id, id)
    })
    throw error
  }

  return options.count
}

async function createUser(ctx: SandboxContext, role: 'caregiver' | 'patient', timeZone: string): Promise<StoredUser> {
  const demo = DEMO_USERS[role]
  const state = health(ctx)
  const existing = [...await state.users.values()].find((u) => u.email === demo.email)
  if (existing) return existing
  const user: StoredUser = {
    id: ctx.hex(24),
    email: demo.email,
    role,
    givenName: demo.givenName,
    familyName: demo.familyName,
    language: 'en-PH',
    timeZone,
    disease: role === 'patient' ? 'asthma' : undefined,
    createdDate: new Date(ctx.clock.now().getTime() - 60 * DAY_MS).toISOString(),
    password: hashPassword(demo.password),
    plan: {medications: []},
  }
  if (user.disease === undefined) delete user.disease
  await state.users.set(user.id, user)
  return user
}

/** A patient (Asia/Manila) with a plan, six weeks of events up to the clock (today's so far too) and ACT results, and a caregiver. */
export async function seedHealth(ctx: SandboxContext): Promise<void> {
  const state = health(ctx)
  const patient = await createUser(ctx, 'patient', 'Asia/Manila')
  const caregiver = await createUser(ctx, 'caregiver', 'Asia/Manila')
  // The demo caregiver may read the demo patient's data (./access.ts).
  if (!linkedPatients(caregiver).includes(patient.id)) {
    caregiver.caregiverOf = [...linkedPatients(caregiver), patient.id]
    await state.users.set(caregiver.id, caregiver)
  }

  if (await state.events.count(patient.id) > 0) return
  const list: Event[] = []

  patient.plan.medications = [
    {
      medicationId: 'med-fluticasone',
      medicationType: 'controller',
      usageList: [
        {hour: 8, minute: 0, doses: 2},
        {hour: 20, minute: 0, doses: 2},
      ],
      sensors: [{mac: 'AA:BB:CC:00:00:01', model: 'hfa-sensor', batteryLevel: 90}],
    },
    {
      medicationId: 'med-salbutamol',
      medicationType: 'rescue',
      usageList: [],
      sensors: [{mac: 'AA:BB:CC:00:00:02', model: 'hfa-sensor', batteryLevel: 75}],
    },
  ]

  // Manila is UTC+8 all year. Days count back from today in Manila (not the UTC day), and today's
  // events up to the clock are kept, so the last days a support person first asks about always
  // hold events, whatever the hour and whichever day of the month the sandbox starts on.
  const now = ctx.clock.now().getTime()
  const manila = new Date(now + 8 * 3_600_000)
  const manilaMidnight = Date.UTC(manila.getUTCFullYear(), manila.getUTCMonth(), manila.getUTCDate()) - 8 * 3_600_000
  const at = (daysAgo: number, localHour: number, minute: number) => new Date(manilaMidnight - daysAgo * DAY_MS + localHour * 3_600_000 + minute * 60_000)
  const add = (event: {date: string} & Record<string, unknown>) => {
    if (Date.parse(event.date) <= now) list.push(newEvent(ctx, patient, event))
  }

  for (let d = 42; d >= 0; d--) {
    if (d % 5 !== 0)
      add({date: at(d, 8, 5).toISOString(), medicationId: 'med-fluticasone', medicationType: 'controller', source: 'sensor', doses: 2})
    if (d % 3 !== 0)
      add({date: at(d, 20, 10).toISOString(), medicationId: 'med-fluticasone', medicationType: 'controller', source: 'sensor', doses: 2})
    if (d % 2 === 0) {
      add({
        date: at(d, d % 4 === 0 ? 23 : 15, 30).toISOString(),
        medicationId: 'med-salbutamol',
        medicationType: 'rescue',
        source: d % 4 === 0 ? 'sensor' : 'manual',
        symptoms: d % 4 === 0 ? ['wokenAtNight', 'cough'] : ['wheeze'],
        triggers: d % 6 === 0 ? ['coldAir'] : ['exercise'],
        address: 'Makati City',
        addressConfirmed: d % 3 === 0,
      })
    }
  }

  await state.users.set(patient.id, patient)
  for (const event of list) await state.events.put(patient.id, event)
  await state.act.set(
    patient.id,
    [35, 28, 21, 14, 7].map((daysAgo, i) => ({date: at(daysAgo, 9, 0).toISOString(), score: 15 + i * 2, kind: 'adult' as const})),
  )
}
