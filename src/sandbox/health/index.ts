import type {FastifyInstance} from 'fastify'

import type {ContextOf, SandboxContext} from '../types.js'
import type {StoredUser} from './state.js'

import {healthService} from '../../services/health/operations.js'
import {readCookie, SESSION_COOKIE, sessionKey} from '../core/sessions.js'
import {sandboxModule} from '../types.js'
import {accessFor, accessibleUser} from './access.js'
import {healthAnswerHeaders, healthAuthentication, healthErrors} from './auth.js'
import {health, healthHandlers} from './handlers.js'
import {generateEvents, MAX_GENERATED_EVENTS, seedHealth} from './seed.js'
import {HEALTH_DOCS, HealthStore} from './state.js'

async function userFor(ctx: SandboxContext, body: {email?: unknown; userId?: unknown}): Promise<StoredUser | undefined> {
  const {users} = health(ctx)
  if (typeof body.userId === 'string') return users.get(body.userId)
  if (typeof body.email === 'string') return [...await users.values()].find((u) => u.email === (body.email as string).toLowerCase())
  return undefined
}

function isoOrUndefined(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

/** The health service: users and sessions, events, metrics computed from them, plans, group configs. */
export const healthModule = sandboxModule({
  service: healthService,
  prefix: '',
  handlers: healthHandlers,
  openState: (store) => new HealthStore(store),
  // A userId in the path: `me` is the signed-in user; another user's data as access.ts allows (linked caregivers read).
  authenticate: healthAuthentication(async (op, targetId, callerId, ctx) => accessibleUser(ctx, callerId, targetId, accessFor(op.method))),
  errors: healthErrors,
  answerHeaders: healthAnswerHeaders,
  sessionTable: (ctx) => health(ctx).sessions,

  // a signed-in request reads its session and the user it signs in (and the user its path names)
  prefetch({headers, params}) {
    const sid = readCookie(headers.cookie, SESSION_COOKIE)
    const named = params.userId && params.userId !== 'me' ? [{collection: HEALTH_DOCS.users, key: params.userId}] : []
    if (!sid) return named
    const session = {collection: HEALTH_DOCS.sessions, key: sessionKey(sid)}
    return [session, {collection: HEALTH_DOCS.users, key: {...session, field: 'userId'}}, ...named]
  },

  control(app: FastifyInstance, ctxOf: ContextOf) {
    /** ACT results feed the actAdult / actChild series: {userId | email, score 5-25, kind adult|child, date?} */
    app.post('/__sandbox/health/act', async (request, reply) => {
      const ctx = ctxOf(request)
      const body = (request.body ?? {}) as Record<string, unknown>
      const user = await userFor(ctx, body)
      const score = body.score
      const kind = body.kind ?? 'adult'
      const date = body.date === undefined ? ctx.clock.now() : isoOrUndefined(body.date)
      if (!user) return reply.code(404).send({message: 'No such user (give userId or email)'})
      if (typeof score !== 'number' || score < 5 || score > 25 || (kind !== 'adult' && kind !== 'child') || !date) {
        return reply.code(400).send({message: 'Expected {score: 5-25, kind: adult|child, date?: ISO 8601}'})
      }

      const result = {date: date.toISOString(), score, kind: kind as 'adult' | 'child'}
      const state = health(ctx)
      await state.act.set(user.id, [...((await state.act.get(user.id)) ?? []), result])
      return reply.code(201).send({userId: user.id, ...result})
    })

    /**
     * Creates N events fast for a user: {userId | email, count, start?, end?} (see generateEvents).
     * At most MAX_GENERATED_EVENTS per request; they are written in batches, and the answer comes
     * once all are committed.
     */
    app.post('/__sandbox/health/events', async (request, reply) => {
      const ctx = ctxOf(request)
      const body = (request.body ?? {}) as Record<string, unknown>
      const user = await userFor(ctx, body)
      if (!user) return reply.code(404).send({message: 'No such user (give userId or email)'})
      const count = body.count
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_GENERATED_EVENTS) {
        return reply
          .code(400)
          .send({message: `Expected {count: 1..${MAX_GENERATED_EVENTS}, start?, end?}: at most ${MAX_GENERATED_EVENTS} events per request`})
      }

      const created = await generateEvents(ctx, user, {count, start: isoOrUndefined(body.start), end: isoOrUndefined(body.end)})
      return reply.code(201).send({userId: user.id, created, total: await health(ctx).events.count(user.id)})
    })
  },

  seed: seedHealth,
})
