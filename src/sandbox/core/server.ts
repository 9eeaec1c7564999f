import Fastify, {type FastifyInstance, type FastifyReply} from 'fastify'
import {randomUUID} from 'node:crypto'

import {escapeControlChars} from '../../control-chars.js'
import {sandboxModules} from '../modules.js'
import {type ContextOf, type SandboxContext, SandboxError, type SandboxEvent, type SandboxModule} from '../types.js'
import {handlersOf} from './answer.js'
import {registerParsers} from './body-parsers.js'
import {newControlToken, registerControlGuard} from './control-guard.js'
import {registerControlRoutes} from './control.js'
import {registerDeliveryRoutes} from './delivery-routes.js'
import {DueDeliveries} from './due-deliveries.js'
import {ErrorShapes} from './error-shapes.js'
import {type FaultQueue} from './faults.js'
import {type Injected, registerOperation} from './operation-routes.js'
import {registerRequestScope, registerSaveBeforeAnswer, rewriteTenantUrl, scopeOf, tenantOf} from './request-scope.js'
import {registerStateRoutes} from './state-routes.js'
import {openState} from './state.js'
import {type SandboxStore} from './store.js'
import {registerTenantRoutes} from './tenant-routes.js'
import {type Tenant, TenantRuntime} from './tenant-runtime.js'
import {registerTenantShares} from './tenant-shares.js'
import {Tenants} from './tenants.js'
import {registerTextChecks} from './text-checks.js'

export interface SandboxOptions extends Injected {
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
  seed?: boolean
  modules?: readonly SandboxModule[]
  /** the token `/__sandbox/...` routes ask for (a shared sandbox's, given by its operator); default: a random one */
  token?: string
  /** host names answered besides the loopback names and the bound address (`--allowed-host`) */
  allowedHosts?: readonly string[]
  /** webhooks to every address that is not global unicast are refused too (`--public` without `--allow-private-callbacks`); link-local and metadata addresses always are */
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
  const notice = options.notice ?? ((message: string) => process.stderr.write(`sandbox: ${message}\n`))
  const state = await openState(modules, {database: options.database, file: options.stateFile, notice})
  const {store} = state
  const runtime = new TenantRuntime({modules, notice, refusePrivateCallbacks: options.refusePrivateCallbacks === true, store})
  let own: Tenant
  try {
    own = await runtime.openDefault({pending: state.pending, savedClock: state.clock, states: state.modules}, options.clock)
    await store.commit()
  } catch (error) {
    await store.close()
    throw error
  }

  const tenants = new Tenants(store, own, runtime)
  await tenants.dropOrphans()
  const webhooks = new DueDeliveries(store, tenants, modules)
  runtime.onDue((tenant, deliveryId) => webhooks.claimAndDeliver(tenant, deliveryId))

  const errors = new ErrorShapes(modules)
  const app = newApp(errors)
  const host = options.host ?? '127.0.0.1'
  const token = options.token ?? newControlToken()
  registerRequestScope(app, {errors, store, tenants}, () => {
    registerControlGuard(app, {allowedHosts: options.allowedHosts, errors, host, token})
    if (store.shared) registerTenantShares(app, errors)
    registerTextChecks(app, errors)
  })
  registerParsers(app)
  registerResponseHeaders(app, errors)
  registerErrorHandling(app, errors)
  registerSaveBeforeAnswer(app, errors)
  registerRoutes(app, {errors, modules, options, store, tenants, webhooks})

  if (options.seed && state.created) {
    for (const m of modules) await m.seed?.(own.ctx)
    await store.commit()
  }

  try {
    await app.listen({host, port: options.port ?? 4010})
  } catch (error) {
    await store.close()
    throw error
  }

  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  runtime.listening(origin)
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
      runtime.onEvent(listener)
    },
  }
}

function newApp(errors: ErrorShapes): FastifyInstance {
  return Fastify({
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    // a URL that does not decode (invalid UTF-8 after %-decoding): the 400 in the service's shape
    frameworkErrors(_error, request, reply) {
      ;(reply as FastifyReply)
        .code(400)
        .send(errors.refusal(request.url, 400, 'The URL is not valid: it does not decode as UTF-8', request.id))
    },
    genReqId: () => randomUUID(),
    logger: false,
    onConstructorPoisoning: 'error',
    onProtoPoisoning: 'error',
    return503OnClosing: true,
    // a tenant's URLs (/t/<id>/...) are routed as the default tenant's; the id is kept for the request's scope
    rewriteUrl: rewriteTenantUrl,
  })
}

interface RouteDeps {
  errors: ErrorShapes
  modules: readonly SandboxModule[]
  options: SandboxOptions
  store: SandboxStore
  tenants: Tenants
  webhooks: DueDeliveries
}

/** The modules' operations and routes of their own, then the control plane (`/__sandbox/...`). */
function registerRoutes(app: FastifyInstance, {errors, modules, options, store, tenants, webhooks}: RouteDeps): void {
  const contextOf: ContextOf = (request) => tenantOf(request).ctx
  for (const m of modules) {
    for (const {handler, op} of handlersOf(m)) registerOperation(app, m, op, handler, errors, options)
    m.routes?.(app, contextOf)
  }

  registerControlRoutes(app, {
    tenantOf,
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
    tenantOf,
  })
  registerTenantRoutes(app, {
    modules,
    async seed(tenant) {
      for (const m of modules) await m.seed?.(tenant.ctx)
    },
    tenantOf,
    tenants,
  })
  for (const m of modules) m.control?.(app, contextOf)
  registerDeliveryRoutes(app, tenantOf)
}

/** Every answer is dated by the sandbox's (movable) clock, as a real server's answers are by its own: the CLI judges the void window by it. */
function registerResponseHeaders(app: FastifyInstance, errors: ErrorShapes): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('date', tenantOf(request).clock.httpDate())
    const headers = errors.moduleOf(request.url)?.answerHeaders?.(request)
    if (headers) reply.headers(headers)

    done(null, payload)
  })
}

/** pg's pool gave up waiting for a connection (postgres-database.ts): the sandbox is busy, not broken. */
const waitedForConnection = (error: Error) => error.message === 'timeout exceeded when trying to connect'

function registerErrorHandling(app: FastifyInstance, errors: ErrorShapes): void {
  app.setErrorHandler(async (error: Error & {statusCode?: number; code?: string}, request, reply) => {
    if (error instanceof SandboxError) {
      reply.code(error.status).headers(error.headers)
      return reply.send(errors.body(errors.moduleOf(request.url), error, request.id))
    }

    if (waitedForConnection(error)) {
      await scopeOf(request).discard()
      reply.code(503).header('retry-after', '1')
      return reply.send(
        errors.refusal(request.url, 503, 'The sandbox is busy (no database connection came free in time); retry later', request.id),
      )
    }

    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
    // A request that failed unexpectedly keeps nothing of what it wrote (refusals keep theirs: an expired session stays deleted).
    if (status >= 500) await scopeOf(request).discard()
    // one line, never a stack trace: the URL and the message are the client's doing, escaped
    if (status === 500)
      process.stderr.write(
        `sandbox: ${request.method} ${escapeControlChars(request.url)}: internal error (${escapeControlChars(error.message)}); request ${request.id}\n`,
      )
    // a route may allow more than BODY_LIMIT (PUT /__sandbox/state): the answer names the limit of the route asked
    const limit = request.routeOptions.bodyLimit ?? BODY_LIMIT
    const message = status === 413 ? `The body is larger than ${limit} bytes` : status === 500 ? 'Internal sandbox error' : error.message
    return reply.code(status).send(errors.refusal(request.url, status, message, request.id))
  })
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errors.refusal(request.url, 404, `No such endpoint: ${request.method} ${request.url.split('?')[0]}`, request.id))
  })
}
