/**
 * Fair tenants on PostgreSQL: each tenant's requests hold at most a bounded share of the replica's
 * connection pool, and wait in a bounded line of their own, so a tenant that floods a replica
 * fills its own line, never another tenant's way to the database. Past its line, a request is
 * answered 429 with `Retry-After` at once (it has read nothing and written nothing).
 *
 * Without it, 400 concurrent writes of one tenant took every connection (each waiting for that
 * tenant's lock, tenants.ts) and queued the rest in the pool's one line, ahead of every other
 * tenant's first request. A tenant's writes run one at a time anyway (its lock): more of them in
 * flight buys it nothing.
 *
 * SQLite has no pool: one connection, one process, and statements that never wait.
 */
import type {FastifyInstance} from 'fastify'

import type {ErrorShapes} from './error-shapes.js'

import {scopeOf} from './request-scope.js'

/** Requests of one tenant under way at once on a replica: each holds at most two connections (its transaction, a batch of its own), so 4 tenants at their share leave most of the 20. */
export const TENANT_ACTIVE_SHARE = 4
/** Requests of one tenant waiting for their turn on a replica; the next one is answered 429. */
export const TENANT_QUEUE_SHARE = 32
/** What a refused request is told to wait, in seconds: a turn of the line goes by in far less. */
const RETRY_AFTER_SECONDS = 1

interface Line {
  active: number
  waiting: (() => void)[]
}

/** The turns of each tenant's requests: at most `active` at a time, at most `queue` waiting. */
export class TenantShares {
  private readonly lines = new Map<string, Line>()

  constructor(
    readonly active = TENANT_ACTIVE_SHARE,
    readonly queue = TENANT_QUEUE_SHARE,
  ) {}

  /** The request's turn (a function that ends it), now or once the tenant's earlier requests end; undefined when the tenant's line is full. */
  enter(tenant: string): Promise<() => void> | undefined {
    let line = this.lines.get(tenant)
    if (!line) this.lines.set(tenant, (line = {active: 0, waiting: []}))
    if (line.active < this.active) {
      line.active++
      return Promise.resolve(this.leaver(tenant, line))
    }

    if (line.waiting.length >= this.queue) return undefined
    const waiting = line
    return new Promise((resolve) => {
      waiting.waiting.push(() => resolve(this.leaver(tenant, waiting)))
    })
  }

  /** Ends a turn once: the next request waiting takes it over, else the tenant has one fewer under way. */
  private leaver(tenant: string, line: Line): () => void {
    let left = false
    return () => {
      if (left) return
      left = true
      const next = line.waiting.shift()
      if (next) return next()
      line.active--
      if (line.active === 0) this.lines.delete(tenant)
    }
  }
}

/**
 * Every request but the load balancer's health check takes a turn of its tenant (the one its URL
 * names) before anything else reads the database, and ends it when its answer is sent or its
 * connection closes.
 */
export function registerTenantShares(app: FastifyInstance, errors: ErrorShapes, shares = new TenantShares()): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' && request.url === '/__sandbox/health') return done()
    const turn = shares.enter(scopeOf(request).tenantId)
    if (!turn) {
      const message = `Too many requests of this tenant under way (${shares.active} at a time, ${shares.queue} waiting); retry after ${RETRY_AFTER_SECONDS} s`
      reply.code(429).header('retry-after', String(RETRY_AFTER_SECONDS)).send(errors.refusal(request.url, 429, message, request.id))
      return
    }

    turn.then((leave) => {
      // its client went away while it waited: the turn goes to the next one
      if (reply.raw.destroyed || request.raw.destroyed) leave()
      else reply.raw.once('close', leave)
      done()
    }, done)
  })
}
