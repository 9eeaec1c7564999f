import {randomBytes} from 'node:crypto'

import type {BodyOf} from '../../http/operation.js'

import {ApiError} from '../../errors.js'
import {sessionFromHeaders} from '../../http/session-cookie.js'
import {healthOps, healthService} from '../../services/health/operations.js'
import {check, checkEqual, type SmokeContext, type SmokeStep, stepsOf} from './runner.js'

/** Two events on a fixed day of the user's (Asia/Manila, UTC+8) calendar: one at night with a cough, one by day. */
const DAY = '2026-01-15'
const NIGHT_EVENT = {
  date: `${DAY}T15:30:00.000Z`,
  doses: 2,
  medicationType: 'rescue',
  source: 'manual',
  symptoms: ['cough'],
  triggers: ['coldAir'],
} satisfies Partial<BodyOf<typeof healthOps.addEvent>> // 23:30 Manila
const DAY_EVENT = {
  date: `${DAY}T03:00:00.000Z`,
  doses: 1,
  medicationType: 'rescue',
  source: 'manual',
  symptoms: [],
  triggers: ['exercise'],
} satisfies Partial<BodyOf<typeof healthOps.addEvent>> // 11:00 Manila

async function planMedication(ctx: SmokeContext, medicationId: string) {
  const user = (await ctx.health.call(healthOps.getUser)).data
  return user.plan?.medications.find((m) => m.medicationId === medicationId)
}

/**
 * Every health operation (16 with sign-in), each answer checked against what was just written.
 * It creates its own throwaway user (the API has no user delete) and removes everything else it adds.
 */
export function healthSteps(options: {group: string}): SmokeStep[] {
  return stepsOf(healthService, {
    getGroupConfig: {
      name: 'group configuration',
      run: async (ctx) => {
        const res = await ctx.health.call(healthOps.getGroupConfig, {params: {idOrName: options.group}})
        check(res.data.name === options.group || res.data.id === options.group, `group ${options.group} answered as ${res.data.name}`)
        const rescue = res.data.medications.find((m) => m.type === 'rescue')
        const controller = res.data.medications.find((m) => m.type === 'controller')
        check(rescue && controller, `group ${options.group} lists no rescue and controller medication`)
        ctx.values.rescueId = rescue.id
        ctx.values.controllerId = controller.id
        return res.requestId
      },
    },
    createUser: {
      name: 'create a user',
      run: async (ctx) => {
        const email = `opsctl-smoke-${randomBytes(6).toString('hex')}@example.com`
        const password = randomBytes(18).toString('base64url')
        const body = {
          email,
          familyName: 'Smoke',
          givenName: 'Opsctl',
          language: 'en-US',
          password,
          role: 'patient' as const,
          timeZone: 'Asia/Manila',
        }
        const res = await ctx.health.call(healthOps.createUser, {body})
        checkEqual(res.status, 201, 'status')
        checkEqual([res.data.email, res.data.role, res.data.timeZone], [email, 'patient', 'Asia/Manila'], 'user')
        const session = sessionFromHeaders(res.headers)
        check(session, 'no connect.sid cookie in the answer')
        ctx.withSession(session)
        Object.assign(ctx.values, {email, password, userId: res.data.id})
        return res.requestId
      },
    },
    signIn: {
      name: 'sign in',
      run: async (ctx) => {
        const res = await ctx.health.call(healthOps.signIn, {body: {email: ctx.values.email, password: ctx.values.password}})
        checkEqual(res.data.id, ctx.values.userId, 'signed-in user id')
        const session = sessionFromHeaders(res.headers)
        check(session, 'no connect.sid cookie in the answer')
        ctx.withSession(session)
        return res.requestId
      },
      needs: ['userId'],
    },
    getUser: {
      name: 'the signed-in user',
      run: async (ctx) => {
        const res = await ctx.health.call(healthOps.getUser)
        checkEqual([res.data.id, res.data.email], [ctx.values.userId, ctx.values.email], 'me')
        return res.requestId
      },
      needs: ['userId'],
    },
    getUserById: {
      name: 'a user by id',
      run: async (ctx) => {
        const res = await ctx.health.call(healthOps.getUserById, {params: {userId: ctx.values.userId}})
        checkEqual(res.data.id, ctx.values.userId, 'user id')
        return res.requestId
      },
      needs: ['userId'],
    },
    addEvent: {
      name: 'add two events',
      run: async (ctx) => {
        let requestId: string | undefined
        for (const [key, event] of [
          ['nightEventId', NIGHT_EVENT],
          ['dayEventId', DAY_EVENT],
        ] as const) {
          const res = await ctx.health.call(healthOps.addEvent, {
            body: {...event, medicationId: ctx.values.rescueId},
            params: {userId: ctx.values.userId},
          })
          checkEqual(res.status, 201, 'status')
          checkEqual([res.data.date, res.data.doses, res.data.symptoms], [event.date, event.doses, event.symptoms], 'stored event')
          ctx.values[key] = res.data.id
          ctx.cleanups.push({name: `delete event ${res.data.id}`, run: () => deleteQuietly(ctx, res.data.id)})
          requestId = res.requestId
        }

        return requestId
      },
      needs: ['userId', 'rescueId'],
    },
    getEvents: {
      name: 'list events with filters',
      run: async (ctx) => {
        const all = await ctx.health.call(healthOps.getEvents, {params: {userId: ctx.values.userId}})
        checkEqual(
          all.data.events.map((e) => e.id),
          [ctx.values.nightEventId, ctx.values.dayEventId],
          'events newest first',
        )
        const night = await ctx.health.call(healthOps.getEvents, {
          params: {userId: ctx.values.userId},
          query: {nightEvent: true, symptoms: ['cough']},
        })
        checkEqual(
          night.data.events.map((e) => e.id),
          [ctx.values.nightEventId],
          'night events with a cough',
        )
        return night.requestId
      },
      needs: ['nightEventId', 'dayEventId'],
    },
    getEventById: {
      name: 'one event',
      run: async (ctx) => {
        const res = await ctx.health.call(healthOps.getEventById, {params: {eventId: ctx.values.nightEventId, userId: ctx.values.userId}})
        checkEqual([res.data.id, res.data.nightEvent, res.data.triggers], [ctx.values.nightEventId, true, ['coldAir']], 'event')
        return res.requestId
      },
      needs: ['nightEventId'],
    },
    updateEvent: {
      name: 'update an event',
      run: async (ctx) => {
        const params = {eventId: ctx.values.dayEventId, userId: ctx.values.userId}
        const res = await ctx.health.call(healthOps.updateEvent, {body: {doses: 3, preemptive: true}, params})
        checkEqual(res.status, 204, 'status')
        const after = await ctx.health.call(healthOps.getEventById, {params})
        checkEqual([after.data.doses, after.data.preemptive], [3, true], 'updated event')
        return res.requestId
      },
      needs: ['dayEventId'],
    },
    getMetrics: {
      name: 'daily metrics from those events',
      run: async (ctx) => {
        const res = await ctx.health.call(healthOps.getMetrics, {
          params: {userId: ctx.values.userId},
          query: {
            endDate: `${DAY}T15:59:59.000Z`,
            name: ['eventsRescue', 'eventsRescueNight'],
            period: ['daily'],
            startDate: `${DAY}T00:00:00+08:00`,
          },
        })
        const day = res.data.periods.daily?.find((w) => w.date === DAY)
        check(day, `no daily window for ${DAY}`)
        checkEqual([day.values.eventsRescue, day.values.eventsRescueNight], [2, 1], `rescue events on ${DAY} (all, night)`)
        return res.requestId
      },
      needs: ['nightEventId', 'dayEventId'],
    },
    addPlanMedication: {
      name: 'add a plan medication',
      run: async (ctx) => {
        const medicationId = ctx.values.controllerId
        const res = await ctx.health.call(healthOps.addPlanMedication, {
          body: {medicationId, usageList: [{doses: 2, hour: 8, minute: 0}]},
          params: {userId: ctx.values.userId},
        })
        checkEqual(res.status, 201, 'status')
        ctx.cleanups.push({name: `remove plan medication ${medicationId}`, run: () => removeMedicationQuietly(ctx, medicationId)})
        checkEqual((await planMedication(ctx, medicationId))?.usageList, [{doses: 2, hour: 8, minute: 0}], 'plan usage list')
        ctx.values.planMedicationId = medicationId
        return res.requestId
      },
      needs: ['userId', 'controllerId'],
    },
    patchPlanMedication: {
      name: 'change its usage',
      run: async (ctx) => {
        const usageList = [
          {doses: 1, hour: 8, minute: 0},
          {doses: 1, hour: 20, minute: 30},
        ]
        const params = {medicationId: ctx.values.planMedicationId, userId: ctx.values.userId}
        const res = await ctx.health.call(healthOps.patchPlanMedication, {body: {usageList}, params})
        checkEqual(res.status, 204, 'status')
        checkEqual((await planMedication(ctx, ctx.values.planMedicationId))?.usageList, usageList, 'plan usage list')
        return res.requestId
      },
      needs: ['planMedicationId'],
    },
    addPlanSensor: {
      name: 'attach a sensor',
      run: async (ctx) => {
        const mac = randomBytes(6).toString('hex').toUpperCase().match(/../g)!.join(':')
        const params = {medicationId: ctx.values.planMedicationId, userId: ctx.values.userId}
        const res = await ctx.health.call(healthOps.addPlanSensor, {body: {mac, model: 'opsctl-smoke'}, params})
        checkEqual(res.status, 201, 'status')
        const sensors = (await planMedication(ctx, ctx.values.planMedicationId))?.sensors ?? []
        check(
          sensors.some((s) => s.mac === mac),
          `sensor ${mac} is not on the plan`,
        )
        ctx.values.mac = mac
        return res.requestId
      },
      needs: ['planMedicationId'],
    },
    deletePlanSensor: {
      name: 'detach the sensor',
      run: async (ctx) => {
        const params = {mac: ctx.values.mac, medicationId: ctx.values.planMedicationId, userId: ctx.values.userId}
        const res = await ctx.health.call(healthOps.deletePlanSensor, {params})
        checkEqual(res.status, 204, 'status')
        const sensors = (await planMedication(ctx, ctx.values.planMedicationId))?.sensors ?? []
        check(!sensors.some((s) => s.mac === ctx.values.mac), `sensor ${ctx.values.mac} is still on the plan`)
        return res.requestId
      },
      needs: ['mac'],
    },
    deletePlanMedication: {
      name: 'remove the plan medication',
      run: async (ctx) => {
        const res = await ctx.health.call(healthOps.deletePlanMedication, {
          params: {medicationId: ctx.values.planMedicationId, userId: ctx.values.userId},
        })
        checkEqual(res.status, 204, 'status')
        check(!(await planMedication(ctx, ctx.values.planMedicationId)), 'the medication is still on the plan')
        return res.requestId
      },
      needs: ['planMedicationId'],
    },
    deleteEvent: {
      name: 'delete the events',
      run: async (ctx) => {
        let requestId: string | undefined
        for (const eventId of [ctx.values.nightEventId, ctx.values.dayEventId]) {
          const res = await ctx.health.call(healthOps.deleteEvent, {params: {eventId, userId: ctx.values.userId}})
          checkEqual(res.status, 204, 'status')
          requestId = res.requestId
        }

        const left = await ctx.health.call(healthOps.getEvents, {params: {userId: ctx.values.userId}})
        checkEqual(left.data.events.length, 0, 'events left')
        return requestId
      },
      needs: ['nightEventId', 'dayEventId'],
    },
  })
}

async function deleteQuietly(ctx: SmokeContext, eventId: string): Promise<void> {
  try {
    await ctx.health.call(healthOps.deleteEvent, {params: {eventId, userId: ctx.values.userId}})
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error
  }
}

async function removeMedicationQuietly(ctx: SmokeContext, medicationId: string): Promise<void> {
  try {
    await ctx.health.call(healthOps.deletePlanMedication, {params: {medicationId, userId: ctx.values.userId}})
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error
  }
}
