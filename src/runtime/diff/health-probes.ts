/**
 * The health service's probes of `sandbox diff`. On the profile's side they read with the
 * profile's own session (its user's record, events and metrics); with --yes (never on
 * production) they also add an event to that user, read it back and delete it. On our side a
 * user of the throwaway sandbox stands in for the profile's (`ourSession`).
 */
import {randomBytes, randomUUID} from 'node:crypto'

import type {ServiceTarget} from '../../http/services.js'
import type {Transport} from '../../http/transport.js'

import {ServiceClient} from '../../http/client.js'
import {sessionFromHeaders} from '../../http/session-cookie.js'
import {healthOps} from '../../services/health/operations.js'
import {type Probe} from './probe.js'

const ERROR_ENUMS = ['code']
/** One night event (23:30 in Manila), the same on both sides. */
const EVENT = {
  date: '2026-01-15T15:30:00.000Z',
  doses: 2,
  medicationId: 'opsctl-diff-medication',
  medicationType: 'rescue',
  source: 'manual',
  symptoms: ['cough'],
  triggers: ['coldAir'],
}

/** A patient of our throwaway sandbox, signed up as any user is, and its session: our side's stand-in for the profile's user. */
export async function ourSession(target: ServiceTarget, transport: Transport): Promise<string> {
  const client = new ServiceClient({target, transport})
  const res = await client.call(healthOps.createUser, {
    body: {
      email: `opsctl-diff-${randomBytes(6).toString('hex')}@example.com`,
      familyName: 'Diff',
      givenName: 'Opsctl',
      language: 'en-US',
      password: randomBytes(18).toString('base64url'),
      role: 'patient',
      timeZone: 'Asia/Manila',
    },
  })
  const session = sessionFromHeaders(res.headers)
  if (!session) throw new Error('our sandbox set no session cookie when a user signed up')
  return session
}

export const healthProbes: readonly Probe[] = [
  {
    changes: false,
    enums: ERROR_ENUMS,
    name: 'health.unknown-group',
    run: (ctx) => ctx.send(healthOps.getGroupConfig, {params: {idOrName: `opsctl-diff-${randomUUID()}`}}),
    service: 'health',
    what: 'the configuration of a group that does not exist',
  },
  {
    changes: false,
    enums: ERROR_ENUMS,
    name: 'health.bad-session',
    run: (ctx) => ctx.send(healthOps.getUser, {target: {session: `opsctl-diff-${randomBytes(12).toString('hex')}`}}),
    service: 'health',
    what: 'the signed-in user, with a session that is not one',
  },
  {
    accountFields: ['birthDate', 'disease', 'caregiverOf'],
    changes: false,
    keeps: {userId: 'id'},
    name: 'health.me',
    needs: ['session'],
    run: (ctx) => ctx.send(healthOps.getUser),
    service: 'health',
    what: 'the signed-in user',
  },
  {
    changes: false,
    name: 'health.events',
    needs: ['session'],
    // A day long past, so that the profile's user has no more events there than ours (none): no paging either.
    run: (ctx) => ctx.send(healthOps.getEvents, {params: {userId: ctx.values.userId}, query: {endDate: '2001-01-02T00:00:00.000Z', startDate: '2001-01-01T00:00:00.000Z'}}),
    service: 'health',
    uses: ['userId'],
    what: 'the user’s events of a day long past',
  },
  {
    changes: false,
    enums: ERROR_ENUMS,
    name: 'health.unknown-event',
    needs: ['session'],
    run: (ctx) => ctx.send(healthOps.getEventById, {params: {eventId: randomUUID(), userId: ctx.values.userId}}),
    service: 'health',
    uses: ['userId'],
    what: 'an event id that does not exist',
  },
  {
    changes: false,
    name: 'health.metrics',
    needs: ['session'],
    run: (ctx) => ctx.send(healthOps.getMetrics, {params: {userId: ctx.values.userId}, query: {name: ['eventsRescue'], period: ['daily']}}),
    service: 'health',
    uses: ['userId'],
    what: 'daily rescue events of the last 30 days',
  },
  {
    changes: false,
    enums: ERROR_ENUMS,
    name: 'health.metrics-bad-period',
    needs: ['session'],
    run: (ctx) => ctx.send(healthOps.getMetrics, {params: {userId: ctx.values.userId}, query: {name: ['actAdult'], period: ['daily']}}),
    service: 'health',
    uses: ['userId'],
    what: 'a metric with a period it does not have',
  },
  {
    changes: true,
    enums: ['medicationType', 'source', 'symptoms[]', 'triggers[]'],
    name: 'health.event-add',
    needs: ['session'],
    async run(ctx) {
      const userId = ctx.values.userId
      const answer = await ctx.send(healthOps.addEvent, {body: EVENT, params: {userId}})
      const id = (answer.body as {id?: unknown})?.id
      if (answer.status === 201 && typeof id === 'string') {
        ctx.values.eventId = id
        ctx.cleanups.push({
          what: `event ${id} of user ${userId}`,
          run: async () => {
            if (ctx.values.eventId) await ctx.client('health').call(healthOps.deleteEvent, {params: {eventId: id, userId}})
          },
        })
      }

      return answer
    },
    service: 'health',
    uses: ['userId'],
    what: 'add an event to the user',
  },
  {
    changes: false,
    enums: ['medicationType', 'source', 'symptoms[]', 'triggers[]'],
    name: 'health.event-get',
    needs: ['session'],
    run: (ctx) => ctx.send(healthOps.getEventById, {params: {eventId: ctx.values.eventId, userId: ctx.values.userId}}),
    service: 'health',
    uses: ['userId', 'eventId'],
    what: 'read that event back',
  },
  {
    changes: true,
    enums: ERROR_ENUMS,
    name: 'health.event-invalid',
    needs: ['session'],
    async run(ctx) {
      const userId = ctx.values.userId
      const answer = await ctx.send(healthOps.addEvent, {body: {...EVENT, doses: 'two'}, params: {userId}})
      const id = (answer.body as {id?: unknown})?.id
      // A service that takes it anyway has made an event: removed at the end like the other.
      if (answer.status < 300 && typeof id === 'string') {
        ctx.cleanups.push({
          what: `event ${id} of user ${userId}`,
          async run() {
            await ctx.client('health').call(healthOps.deleteEvent, {params: {eventId: id, userId}})
          },
        })
      }

      return answer
    },
    service: 'health',
    uses: ['userId'],
    what: 'add an event whose doses is not a number',
  },
  {
    changes: true,
    name: 'health.event-delete',
    needs: ['session'],
    async run(ctx) {
      const answer = await ctx.send(healthOps.deleteEvent, {params: {eventId: ctx.values.eventId, userId: ctx.values.userId}})
      if (answer.status === 204) delete ctx.values.eventId
      return answer
    },
    service: 'health',
    uses: ['userId', 'eventId'],
    what: 'delete that event',
  },
]
