import Fastify, {type FastifyInstance, type FastifyReply, type FastifyRequest} from 'fastify'
import {randomUUID} from 'node:crypto'
import {setTimeout as sleep} from 'node:timers/promises'

import type {Operation} from '../../http/operation.js'

import {escapeControlChars} from '../../control-chars.js'
import {nestsDeeperThan, SANDBOX_BODY_MAX_DEPTH} from '../../services/sandbox-defaults.js'
import {sandboxModules} from '../modules.js'
import {
  type ContextOf,
  type Handler,
  type SandboxContext,
  SandboxError,
  type SandboxEvent,
  type SandboxModule,
} from '../types.js'
import {answer, handlersOf} from './answer.js'
import {SandboxClock} from './clock.js'
import {newControlToken, registerControlGuard} from './control-guard.js'
import {registerControlRoutes} from './control.js'
import {registerDeliveryRoutes} from './delivery-routes.js'
import {DueDeliveries} from './due-deliveries.js'
import {ErrorShapes, fieldsOf} from './error-shapes.js'
import {type Fault, FaultQueue} from './faults.js'
import {registerStateRoutes} from './state-routes.js'
import {moduleStates, openState, PendingDeliveries, SavedClock} from './state.js'
import {type SandboxStore} from './store.js'
import {DEFAULT_TENANT} from './tenant-ids.js'
import {registerTenantRoutes} from './tenant-routes.js'
import {registerTenantShares} from './tenant-shares.js'
import {isRead, keyKindOf, openTenant, publishedKeyKind, readyForHandler, registerTenantResolution, rewriteTenantUrl, type RouteDocs, type Tenant, TenantGoneError, tenantOf, type TenantRuntimeDeps, Tenants} from './tenants.js'
import {registerTextChecks} from './text-checks.js'

export interface SandboxOptions {
  port?: number
  host?: string
  /** the database file (created when missing; a JSON state file of the old format is imported once); without it, an in-memory database */
  stateFile?: string
  /** a PostgreSQL URL instead: the database several replicas share (docs/architecture.md) */
  database?: string
  /** what the sandbox tells its operator (a JSON state file imported); default: stderr */
  notice?(message: string): void
  /** start the clock here (ISO 8601); it runs on from there. The clock of a state file is only moved forward by it. */
  clock?: string
  /** added to every service request */
  latencyMs?: number
  /** share of service requests answered 503 with Retry-After: 1 */
  failRate?: number
  seed?: boolean
  modules?: readonly SandboxModule[]
  /** the token `/__sandbox/...` routes ask for (a shared sandbox's, given by its operator); default: a random one */
  token?: string
  /** host names answered besides the loopback names and the bound address (`--allowed-host`) */
  allowedHosts?: readonly string[]
  /** webhooks to loopback and private addresses are refused too (`--public` without `--allow-private-callbacks`); link-local and metadata addresses always are */
  refusePrivateCallbacks?: boolean
}

export interface RunningSandbox {
  origin: string
  /** the control token: `Authorization: Bearer <token>` on every `/__sandbox/...` route but GET /__sandbox/health */
  token: string
  app: FastifyInstance
  /** the default tenant's context */
  ctx: SandboxContext
  /** the default tenant's fault queue */
  faults: FaultQueue
  /** the tenants besides the default one (core/tenants.ts) */
  tenants: Tenants
  /** the database (tests use it to inject storage faults) */
  store: SandboxStore
  /** Subscribes to the events modules emit (payments succeeding, failing, dropping out), of every tenant. */
  onEvent(listener: (event: SandboxEvent) => void): void
  close(): Promise<void>
}

export const BODY_LIMIT = 1024 * 1024

/** Builds the emulator: one fastify app serving every module's operations on one origin, for every tenant. */
export async function createSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const modules = options.modules ?? sandboxModules
  const listeners: ((event: SandboxEvent) => void)[] = []
  const notice = options.notice ?? ((message: string) => process.stderr.write(`sandbox: ${message}\n`))
  const {clock: savedClock, created, modules: states, pending, store} = await openState(modules, {database: options.database, file: options.stateFile, notice})
  let clock: SandboxClock
  try {
    clock = await startClock(savedClock, options.clock, notice, pending)
    await store.commit()
  } catch (error) {
    await store.close()
    throw error
  }

  let origin = ''
  const runtime: TenantRuntimeDeps = {
    deliver: (tenant, id) => webhooks.claimAndDeliver(tenant, id),
    listeners,
    modules,
    origin: () => origin,
    refusePrivateCallbacks: options.refusePrivateCallbacks === true,
    store,
  }
  const tenants = new Tenants(store, openTenant(DEFAULT_TENANT, {clock, handle: store.forTenant(DEFAULT_TENANT), pending, savedClock, states}, publishedKeyKind, runtime), async (record) => {
    const handle = store.forTenant(record.id)
    const saved = new SavedClock(handle)
    const parts = {handle, pending: new PendingDeliveries(handle), savedClock: saved, states: moduleStates(modules, handle)}
    return openTenant(record.id, {...parts, clock: await startClock(saved, undefined, notice)}, keyKindOf(record), runtime)
  })
  await tenants.dropOrphans()
  const own = tenants.defaultTenant
  const tenantOfRequest = (request: FastifyRequest) => tenantOf(request, tenants)
  const contextOf: ContextOf = (request) => tenantOfRequest(request).ctx

  const webhooks = new DueDeliveries(store, tenants, modules)

  /**
   * Commits what the request wrote, then lets listeners hear the events of those changes. Throws (or
   * rejects) when the commit fails, and with TenantGoneError when its tenant was deleted meanwhile
   * (then nothing of it is kept). A read, or a write of the default tenant, commits at once.
   */
  const persist = (request: FastifyRequest) =>
    store.within(request.raw, () => {
      const tenant = tenantOfRequest(request)
      return tenant === own || !store.writing() ? store.commit() : commitIfHeld(tenant.id)
    })
  const commitIfHeld = async (id: string) => {
    if (await tenants.holds(id)) return store.commit()
    await store.discard()
    throw new TenantGoneError(id)
  }

  const errors = new ErrorShapes(modules)
  const app: FastifyInstance = Fastify({
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    // a URL that does not decode (invalid UTF-8 after %-decoding): the 400 in the service's shape
    frameworkErrors(_error, request, reply) {
      ;(reply as FastifyReply).code(400).send(errors.refusal(request.url, 400, 'The URL is not valid: it does not decode as UTF-8', request.id))
    },
    genReqId: () => randomUUID(),
    logger: false,
    onConstructorPoisoning: 'error',
    onProtoPoisoning: 'error',
    return503OnClosing: true,
    // a tenant's URLs (/t/<id>/...) are routed as the default tenant's; the id is kept for the request
    rewriteUrl: rewriteTenantUrl,
  })
  // every route runs in its request's scope: its transaction and read cache (store.ts)
  app.addHook('onRoute', (route) => {
    const handler = route.handler
    route.handler = function (this: FastifyInstance, request, reply) {
      return store.within(request.raw, () => handler.call(this, request, reply))
    }
  })
  const token = options.token ?? newControlToken()
  registerControlGuard(app, {allowedHosts: options.allowedHosts, errors, host: options.host ?? '127.0.0.1', token})
  if (store.shared) registerAbandonment(app, store)
  if (store.shared) registerTenantShares(app, errors)
  registerTextChecks(app, errors)
  const routeDocs: RouteDocs = (request) => errors.moduleOf(request.url)?.prefetch?.({headers: request.headers, params: request.params as Record<string, string>}) ?? []
  registerTenantResolution(app, tenants, errors, store, routeDocs)
  registerParsers(app)
  registerResponseHeaders(app, tenantOfRequest, errors)
  registerErrorHandling(app, store, errors)
  registerSaveBeforeAnswer(app, store, persist, errors)

  for (const m of modules) {
    for (const {handler, op} of handlersOf(m)) registerOperation(app, m, op, handler, {errors, options, persist, routeDocs, store, tenantOf: tenantOfRequest, tenants})
    m.routes?.(app, contextOf)
  }

  registerControlRoutes(app, {
    tenantOf: tenantOfRequest,
    async onClockMoved(tenant, ms) {
      await tenant.pending.shift(ms)
      store.afterCommit(() => webhooks.pollNow())
    },
    async onReset(tenant) {
      for (const m of tenant.states.values()) await m.reset()
      await tenant.pending.clear()
      // a tenant starts over at the real time: the only way its forward-only clock goes back
      tenant.clock.restore(0)
      await tenant.savedClock.set(0)
    },
  })
  registerStateRoutes(app, {
    async dropSessions(tenant) {
      for (const m of modules) await m.sessionTable?.(tenant.ctx).clear()
    },
    store,
    tenantOf: tenantOfRequest,
  })
  registerTenantRoutes(app, {
    modules,
    async seed(tenant) {
      for (const m of modules) await m.seed?.(tenant.ctx)
    },
    tenantOf: tenantOfRequest,
    tenants,
  })
  for (const m of modules) m.control?.(app, contextOf)

  registerDeliveryRoutes(app, tenantOfRequest)

  if (options.seed && created) {
    for (const m of modules) await m.seed?.(own.ctx)
    await store.commit()
  }

  try {
    await app.listen({host: options.host ?? '127.0.0.1', port: options.port ?? 4010})
  } catch (error) {
    await store.close()
    throw error
  }

  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const host = options.host ?? '127.0.0.1'
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  // Deliveries that were due when the sandbox stopped (or was killed), or whose replica died, go out now and whenever they come due.
  await webhooks.start()

  return {
    app,
    ctx: own.ctx,
    faults: own.faults,
    origin,
    store,
    tenants,
    token,
    async close() {
      try {
        webhooks.stop()
        await app.close()
        // a look under way may start deliveries; deliveries that end record it: wait for each in turn
        await webhooks.settled()
        await Promise.all(tenants.opened().map((tenant) => tenant.deliveries.settle()))
        await webhooks.settled()
      } finally {
        await store.close()
      }
    },
    onEvent(listener) {
      listeners.push(listener)
    },
  }
}

/**
 * The clock where the state left it (a saved offset), so it never goes back across a restart;
 * `--clock` moves it forward from there, and is ignored, with a notice, when it is earlier.
 * Every move from then on is saved with the request that made it.
 */
async function startClock(saved: SavedClock, start: string | undefined, notice: (message: string) => void, pending?: PendingDeliveries): Promise<SandboxClock> {
  const clock = new SandboxClock()
  const offset = await saved.get()
  if (offset !== undefined) clock.restore(offset)
  if (start !== undefined) {
    if (offset === undefined || Date.parse(start) > clock.now().getTime()) clock.set(start)
    else notice(`the clock stays at ${clock.now().toISOString()}, where the state left it: --clock ${start} would move it back`)
  }

  if (clock.offset !== offset) {
    await saved.set(clock.offset)
    // --clock moved a saved clock forward: what was due on the way is due now
    if (offset !== undefined) await pending?.shift(clock.offset - offset)
  }

  // on SQLite the write runs synchronously, in the transaction of the request that moved the clock
  clock.onMove = (offsetMs) => {
    saved.set(offsetMs).catch((error: unknown) => process.stderr.write(`sandbox: could not save the clock: ${(error as Error).message}\n`))
  }

  return clock
}

/** The sessions table of the module that keeps sign-ins; a sandbox without one has no sessions to keep. */

interface RouteDeps {
  errors: ErrorShapes
  options: SandboxOptions
  persist(request: FastifyRequest): Promise<void> | void
  routeDocs: RouteDocs
  store: SandboxStore
  tenants: Tenants
  /** the tenant the request's URL names: its context, faults and keys */
  tenantOf(request: FastifyRequest): Tenant
}

/**
 * The fault the operation takes, if any, once the request is ready for its handler (its tenant's
 * lock taken, for a write on PostgreSQL): a delay is slept before, holding no lock. A write on
 * PostgreSQL reads its tenant's fault queue under its lock (with its tenant's rows, no round trip
 * more), so the rare request that finds a fault lets the lock go, takes the fault on its own, and
 * takes the lock again.
 */
async function faultOf(op: Operation, request: FastifyRequest, tenant: Tenant, deps: RouteDeps): Promise<Fault | undefined> {
  const {store} = deps
  const ready = () => readyForHandler(request, tenant, store, deps.routeDocs, deps.tenants)
  const take = async () => {
    const fault = await tenant.faults.take(op.id)
    if (fault?.kind === 'delay') await sleep(fault.ms ?? 1000)
    return fault
  }

  if (!store.shared || isRead(request)) {
    const fault = await take()
    await ready()
    return fault
  }

  await ready()
  if (!(await tenant.faults.due(op.id))) return undefined
  await store.discard()
  const fault = await take()
  await ready()
  return fault
}

function registerOperation(app: FastifyInstance, m: SandboxModule, op: Operation, handler: Handler, deps: RouteDeps): void {
  const url = m.prefix + op.path.replaceAll(/{(\w+)}/g, ':$1')
  app.route({
    method: op.method,
    url,
    // the tenant's lock and clock are taken in the handler, after the operation's faults (tenants.ts)
    config: {operation: true},
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const {errors, options, persist} = deps
      const tenant = deps.tenantOf(request)
      const {ctx} = tenant
      if (options.latencyMs) await sleep(options.latencyMs)
      if (options.failRate && Math.random() < options.failRate) {
        throw new SandboxError(503, errors.code(m, 503), 'Injected failure (--fail-rate); retry later', [], {'retry-after': '1'})
      }

      const fault = await faultOf(op, request, tenant, deps)
      if (fault?.kind === '500') throw new SandboxError(500, errors.code(m, 500), `Injected server error on ${op.id}`)
      if (fault?.kind === 'drop') {
        // no answer, so no onSend: that the fault was taken is saved here
        await persist(request)
        return drop(request, reply)
      }

      const params = {...(request.params as Record<string, string>)}
      const headers = request.headers as Record<string, string | string[] | undefined>
      const {key, userId} = (await m.authenticate?.(op, {headers, params}, ctx)) ?? {}

      let body: unknown = request.body
      if (op.body) {
        const parsed = op.body.safeParse(body ?? {})
        if (!parsed.success) throw validationError(errors.code(m, 400), parsed.error.issues, 'body')
        body = parsed.data
      }

      let query = request.query as Record<string, unknown>
      if (op.query) {
        const parsed = op.query.safeParse(query ?? {})
        if (!parsed.success) throw validationError(errors.code(m, 400), parsed.error.issues, 'query')
        query = parsed.data as Record<string, unknown>
      }

      const language = typeof headers['accept-language'] === 'string' ? headers['accept-language'] : undefined
      const result = await answer(op, handler, {body, headers, key, language, params, query, userId}, ctx)
      if (fault?.kind === 'drop-after-commit') {
        // no answer, so no onSend: the change is saved here
        await persist(request)
        return drop(request, reply)
      }

      reply.code(result.status)
      if (result.headers) reply.headers(result.headers)
      return result.status === 204 || result.body === undefined ? reply.send() : reply.send(result.body)
    },
  })
}

function validationError(code: string, issues: readonly {path: readonly PropertyKey[]; message: string}[], root: string): SandboxError {
  const fields = fieldsOf(issues, root)
  const message = `Invalid ${root}: ${fields.map((f) => `${f.field}: ${f.description}`).join('; ')}`
  return new SandboxError(400, code, message, fields)
}

/** Ends the exchange without an answer, as a crashed server or a cut network would. */
function drop(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack()
  request.raw.socket.destroy()
}

/** Body keys that would reach an object's prototype if a parser let them through. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * A NUL character in a body: no field takes one, and PostgreSQL refuses it in a text column, so it
 * is refused as the body is parsed, on both engines. In JSON it can only be the escape `\u0000`
 * (a raw control character is not valid JSON); one preceded by an odd number of backslashes is text.
 */
const JSON_NUL = /(?<!\\)(?:\\\\)*\\u0000/i
const NUL_REFUSAL = 'The body holds a NUL character (\\u0000), which no field accepts'

function badBody(message: string): Error {
  return Object.assign(new Error(message), {statusCode: 400})
}

/**
 * Real clients send JSON with a charset parameter, an empty body with a JSON content type, or a
 * `{}` body on GET and DELETE: all are accepted. JSON goes through fastify's own parser
 * (secure-json-parse), which refuses `__proto__` and `constructor.prototype` keys at any depth.
 * HTML forms (the hosted payment page) post urlencoded bodies: they become null-prototype
 * records, and a field named like a prototype key is refused.
 */
function registerParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json/, {parseAs: 'string'}, (request, text, done) => {
    const body = String(text)
    if (body.trim() === '') return done(null, undefined)
    if (JSON_NUL.test(body)) return done(badBody(NUL_REFUSAL), undefined)
    parseJson(request, body, (error, parsed) => {
      // before anything walks it: validation, the handlers, JSON.stringify and the redaction walks recurse
      if (!error && nestsDeeperThan(parsed, SANDBOX_BODY_MAX_DEPTH)) return done(badBody(`The body is nested deeper than ${SANDBOX_BODY_MAX_DEPTH} levels`), undefined)
      if (!error) return done(null, parsed)
      let wellFormed = true
      try {
        JSON.parse(body)
      } catch {
        wellFormed = false
      }

      done(badBody(wellFormed ? 'The body has a forbidden key (__proto__ or constructor.prototype)' : 'The body is not valid JSON'), undefined)
    })
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', {parseAs: 'string'}, (_request, text, done) => {
    const form: Record<string, string> = Object.create(null)
    for (const [key, value] of new URLSearchParams(String(text))) {
      if (PROTOTYPE_KEYS.has(key)) return done(badBody(`The form has a forbidden field name: ${key}`), undefined)
      if (key.includes('\u0000') || value.includes('\u0000')) return done(badBody(NUL_REFUSAL), undefined)
      form[key] = value
    }

    done(null, form)
  })
}

/**
 * Whatever a request changed is committed (and synced to disk) before a byte of its answer
 * leaves: operations, the hosted payment page, control routes and refusals alike. When the save
 * fails, the answer becomes a 500 that says the outcome is unknown, never the success it was.
 */
/**
 * PostgreSQL: a request whose connection closes before its answer (its client went away, or the
 * sandbox is stopping) keeps nothing it did not commit, and lets its tenant's lock go at once
 * rather than when its handler ends. Registered before the hook that takes the lock.
 */
function registerAbandonment(app: FastifyInstance, store: SandboxStore): void {
  app.addHook('onRequest', (request, reply, done) => {
    const abandon = () => {
      if (reply.raw.writableFinished) return
      Promise.resolve(store.within(request.raw, () => store.abandon())).catch((error: unknown) => {
        process.stderr.write(`sandbox: could not roll back an abandoned request: ${(error as Error).message}\n`)
      })
    }

    reply.raw.once('close', abandon)
    done()
  })
}

function registerSaveBeforeAnswer(app: FastifyInstance, store: SandboxStore, persist: (request: FastifyRequest) => Promise<void> | void, errors: ErrorShapes): void {
  // callback-style hooks (here and below): an async one costs every answer a promise (SQLite commits synchronously)
  app.addHook('onSend', (request, reply, payload, done) => {
    const failed = (error: unknown) => {
      reply.type('application/json; charset=utf-8').removeHeader('location')
      if (error instanceof TenantGoneError) {
        reply.code(404)
        return done(null, JSON.stringify(errors.refusal(request.url, 404, error.message, request.id)))
      }

      process.stderr.write(`sandbox: could not save the state: ${(error as Error).message}\n`)
      reply.code(500)
      done(null, JSON.stringify(errors.refusal(request.url, 500, 'The sandbox could not save this change; its outcome is unknown', request.id)))
    }

    let saving
    try {
      saving = persist(request)
    } catch (error) {
      return failed(error)
    }

    if (saving) saving.then(() => done(null, payload), failed)
    else done(null, payload)
  })
  if (!store.shared) return
  // ...and one that ended without an answer of its own (a dropped connection)
  app.addHook('onResponse', (request, _reply, done) => {
    const dropped = store.within(request.raw, () => store.discard())
    if (dropped) dropped.then(() => done(), done)
    else done()
  })
}

/** Every answer is dated by the sandbox's (movable) clock, as a real server's answers are by its own: the CLI judges the void window by it. */
function registerResponseHeaders(app: FastifyInstance, tenantOf: (request: FastifyRequest) => Tenant, errors: ErrorShapes): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('date', tenantOf(request).clock.httpDate())
    const headers = errors.moduleOf(request.url)?.answerHeaders?.(request)
    if (headers) reply.headers(headers)

    done(null, payload)
  })
}

/** pg's pool gave up waiting for a connection (postgres-database.ts): the sandbox is busy, not broken. */
const waitedForConnection = (error: Error) => error.message === 'timeout exceeded when trying to connect'

function registerErrorHandling(app: FastifyInstance, store: SandboxStore, errors: ErrorShapes): void {
  app.setErrorHandler(async (error: Error & {statusCode?: number; code?: string}, request, reply) => {
    if (error instanceof SandboxError) {
      reply.code(error.status).headers(error.headers)
      return reply.send(errors.body(errors.moduleOf(request.url), error, request.id))
    }

    if (waitedForConnection(error)) {
      await store.within(request.raw, () => store.discard())
      reply.code(503).header('retry-after', '1')
      return reply.send(errors.refusal(request.url, 503, 'The sandbox is busy (no database connection came free in time); retry later', request.id))
    }

    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
    // A request that failed unexpectedly keeps nothing of what it wrote (refusals keep theirs: an expired session stays deleted).
    if (status >= 500) await store.within(request.raw, () => store.discard())
    // one line, never a stack trace: the URL and the message are the client's doing, escaped
    if (status === 500) process.stderr.write(`sandbox: ${request.method} ${escapeControlChars(request.url)}: internal error (${escapeControlChars(error.message)}); request ${request.id}\n`)
    // a route may allow more than BODY_LIMIT (PUT /__sandbox/state): the answer names the limit of the route asked
    const limit = request.routeOptions.bodyLimit ?? BODY_LIMIT
    const message = status === 413 ? `The body is larger than ${limit} bytes` : status === 500 ? 'Internal sandbox error' : error.message
    return reply.code(status).send(errors.refusal(request.url, status, message, request.id))
  })
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errors.refusal(request.url, 404, `No such endpoint: ${request.method} ${request.url.split('?')[0]}`, request.id))
  })
}
