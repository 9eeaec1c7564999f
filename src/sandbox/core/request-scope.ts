/**
 * A request's scope: what the core holds for one request of one tenant, from its first hook to its
 * answer. The tenant its URL named (read once, as the URL is routed), the tenant itself once it is
 * known to exist, its transaction and read cache in the store, its tenant's lock and clock taken
 * before its handler, the fault it takes, and its change committed before its answer or rolled
 * back when it ends without one.
 *
 * It is `request.scope` (fastify's `decorateRequest`), set in the first onRequest hook of
 * `registerRequestScope`; every hook and route after it reads it from there.
 */
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import type {IncomingMessage} from 'node:http'

import {setTimeout as sleep} from 'node:timers/promises'

import type {Operation} from '../../http/operation.js'
import type {ErrorShapes} from './error-shapes.js'
import type {Fault} from './faults.js'
import type {DocRef, SandboxStore, StoreScope} from './store.js'
import type {KeyKind, Tenant} from './tenant-runtime.js'

import {DEFAULT_TENANT, splitTenantUrl} from './tenant-ids.js'
import {tenantDocs, TenantGoneError, type Tenants} from './tenants.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the first onRequest hook (`registerRequestScope`); null only where no hook runs (fastify's `frameworkErrors`). */
    scope: null | RequestScope
  }
}

/** What a request's scope works with: the store, the tenants, and the modules' error shapes and documents. */
export interface ScopeDeps {
  errors: ErrorShapes
  store: SandboxStore
  tenants: Tenants
}

/** A request that changes nothing: it takes no tenant lock and no transaction. */
export const isRead = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD'

/** The raw request once routed: fastify keeps the URL it arrived with on it (`originalUrl`), and `rewriteTenantUrl` the tenant that URL named. */
type RoutedMessage = IncomingMessage & {tenantNamed?: string}

/**
 * fastify's `rewriteUrl`, the one place a tenant's URL is split: `/t/<id>/...` is routed as `/...`,
 * and the id is kept on the raw request for its scope. Every route, hook and guard then sees the
 * same paths for every tenant: the control guard's `/__sandbox` test included. A malformed id is
 * left in the URL, which no route matches (404).
 */
export function rewriteTenantUrl(raw: RoutedMessage): string {
  const url = raw.url ?? '/'
  const split = splitTenantUrl(url)
  if (!split) return url
  raw.tenantNamed = split.tenant
  return split.url
}

export class RequestScope {
  /** the tenant its URL named, once it is known to exist (`resolve`) */
  tenant: Tenant | undefined
  private readonly inStore: StoreScope

  constructor(
    /** the id of the tenant its URL named (the default tenant's for an unprefixed URL), before it is resolved */
    readonly tenantId: string,
    private readonly request: FastifyRequest,
    private readonly deps: ScopeDeps,
  ) {
    this.inStore = deps.store.newScope()
  }

  /** Its tenant; the default one for a request refused before it was resolved. */
  get tenantOrDefault(): Tenant {
    return this.tenant ?? this.deps.tenants.defaultTenant
  }

  /** Runs `work` in the request's transaction and read cache. */
  run<T>(work: () => T): T {
    return this.deps.store.within(this.inStore, work)
  }

  /**
   * Finds its tenant, once the guards let it through; undefined when there is none of that id. A
   * write reads its tenant's rows once, under its lock (`ready`), when this process has the tenant
   * open: a round trip fewer; its faults are looked at there too (`takeFault`).
   */
  async resolve(): Promise<Tenant | undefined> {
    const {store, tenants} = this.deps
    const known = store.shared && !isRead(this.request) ? tenants.known(this.tenantId) : undefined
    if (known) return (this.tenant = known)
    return this.run(async () => {
      // a read's route documents come now; a write's are read again under its tenant's lock anyway
      await store.prefetch(store.shared && isRead(this.request) ? this.documents() : tenantDocs(this.tenantId))
      return (this.tenant = await tenants.get(this.tenantId))
    })
  }

  /**
   * Just before a route's handler: a request that writes waits for its tenant's other writes (from
   * any replica) before it reads anything, and the clock is read as the database has it then
   * (another replica may have moved it). A write finds out here, under the lock, whether its tenant
   * is still there (it read nothing when it arrived: `resolve`). SQLite has no lock to take nor
   * clock to read: one connection, one process.
   */
  async ready(): Promise<void> {
    const {store, tenants} = this.deps
    if (!store.shared) return
    const tenant = this.tenantOrDefault
    await this.run(async () => {
      if (!isRead(this.request)) {
        await store.beginWrite(tenant.id)
        await store.prefetch(this.documents())
        if (!(await tenants.get(tenant.id))) throw new TenantGoneError(tenant.id)
      }

      tenant.clock.restore((await tenant.savedClock.get()) ?? 0)
    })
  }

  /**
   * The fault the operation takes, if any, and the request made ready for its handler (`ready`): a
   * delay is slept before, holding no lock. A write on PostgreSQL reads its tenant's fault queue
   * under its lock (with its tenant's rows, no round trip more), so the rare request that finds a
   * fault lets the lock go, takes the fault on its own, and takes the lock again.
   */
  async takeFault(op: Operation): Promise<Fault | undefined> {
    const {store} = this.deps
    const {faults} = this.tenantOrDefault
    const take = async () => {
      const fault = await faults.take(op.id)
      if (fault?.kind === 'delay') await sleep(fault.ms ?? 1000)
      return fault
    }

    return this.run(async () => {
      if (!store.shared || isRead(this.request)) {
        const fault = await take()
        await this.ready()
        return fault
      }

      await this.ready()
      if (!(await faults.due(op.id))) return undefined
      await store.discard()
      const fault = await take()
      await this.ready()
      return fault
    })
  }

  /**
   * Commits what the request wrote, then lets listeners hear the events of those changes. Throws (or
   * rejects) when the commit fails, and with TenantGoneError when its tenant was deleted meanwhile
   * (then nothing of it is kept). A read, or a write of the default tenant, commits at once.
   */
  persist(): Promise<void> | void {
    const {store, tenants} = this.deps
    return this.run(() => {
      const tenant = this.tenantOrDefault
      if (tenant === tenants.defaultTenant || !store.writing()) return store.commit()
      return this.commitIfHeld(tenant.id)
    })
  }

  /** Drops what the request wrote (it failed unexpectedly, or ended without an answer). */
  discard(): Promise<void> | void {
    return this.run(() => this.deps.store.discard())
  }

  /** Its client went away before its answer: what it wrote is dropped now, its tenant's lock let go (PostgreSQL). */
  abandon(): Promise<void> | void {
    return this.run(() => this.deps.store.abandon())
  }

  private async commitIfHeld(id: string): Promise<void> {
    const {store, tenants} = this.deps
    if (await tenants.holds(id)) return store.commit()
    await store.discard()
    throw new TenantGoneError(id)
  }

  /** The tenant's documents and those the route names (its module's `prefetch`): what a request reads before its handler. */
  private documents(): DocRef[] {
    const {request} = this
    const routeDocs =
      this.deps.errors.moduleOf(request.url)?.prefetch?.({headers: request.headers, params: request.params as Record<string, string>}) ?? []
    return [...tenantDocs(this.tenantId), ...routeDocs.map((doc) => ({...doc, tenant: this.tenantId}))]
  }
}

/** The request's scope; every request has one once its first onRequest hook ran. */
export function scopeOf(request: FastifyRequest): RequestScope {
  if (!request.scope) throw new Error('The request has no scope: registerRequestScope was not registered first')
  return request.scope
}

/** The request's tenant; the default one for a request refused before its tenant was resolved. */
export const tenantOf = (request: FastifyRequest): Tenant => scopeOf(request).tenantOrDefault

/** The kind of checkout key a request's tenant gives `key`, for code outside the core's routes (CORS). */
export function requestKeyKind(request: FastifyRequest, key: string): KeyKind | undefined {
  return request.scope?.tenant?.keyKind(key)
}

/**
 * A request's lifetime, in order: its scope made from the URL it arrived with; `guards`, the hooks
 * that refuse before anything is read (the control guard, so a control route of any tenant asks
 * for the token first; tenant shares; text checks); its tenant resolved (one that does not exist is
 * a 404 in the service's error shape); its lock and clock taken before the handler; every route run
 * in its scope; rolled back when it ends without an answer. Its change is committed before its
 * answer by `registerSaveBeforeAnswer`, registered after the hooks that set the answer's headers.
 */
export function registerRequestScope(app: FastifyInstance, deps: ScopeDeps, guards: () => void): void {
  const {errors, store} = deps
  app.decorateRequest('scope', null)
  app.addHook('onRequest', (request, reply, done) => {
    request.scope = new RequestScope((request.raw as RoutedMessage).tenantNamed ?? DEFAULT_TENANT, request, deps)
    if (store.shared) abandonOnClose(request.scope, reply)
    done()
  })
  guards()
  app.addHook('onRequest', async (request, reply) => {
    const scope = scopeOf(request)
    if (await scope.resolve()) return
    reply.code(404).send(errors.refusal(request.url, 404, `No tenant ${scope.tenantId} on this sandbox`, request.id))
    return reply
  })
  // every route runs in its request's scope: its transaction and read cache (store.ts)
  app.addHook('onRoute', (route) => {
    const handler = route.handler
    route.handler = function (this: FastifyInstance, request, reply) {
      return scopeOf(request).run(() => handler.call(this, request, reply))
    }
  })
  if (!store.shared) return
  // after the body is read (a slow upload holds no lock); an operation does this itself once its
  // faults are applied (`takeFault`), so a delayed write holds none while it waits
  app.addHook('preHandler', async (request) => {
    const scope = scopeOf(request)
    if (scope.tenant && !(request.routeOptions.config as {operation?: boolean}).operation) await scope.ready()
  })
  // ...and one that ended without an answer of its own (a dropped connection) is rolled back
  app.addHook('onResponse', (request, _reply, done) => {
    const dropped = scopeOf(request).discard()
    if (dropped) dropped.then(() => done(), done)
    else done()
  })
}

/**
 * PostgreSQL: a request whose connection closes before its answer (its client went away, or the
 * sandbox is stopping) keeps nothing it did not commit, and lets its tenant's lock go at once
 * rather than when its handler ends.
 */
function abandonOnClose(scope: RequestScope, reply: FastifyReply): void {
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) return
    Promise.resolve(scope.abandon()).catch((error: unknown) => {
      process.stderr.write(`sandbox: could not roll back an abandoned request: ${(error as Error).message}\n`)
    })
  })
}

/**
 * Whatever a request changed is committed (and synced to disk) before a byte of its answer
 * leaves: operations, the hosted payment page, control routes and refusals alike. When the save
 * fails, the answer becomes a 500 that says the outcome is unknown, never the success it was.
 */
export function registerSaveBeforeAnswer(app: FastifyInstance, errors: ErrorShapes): void {
  // callback-style: an async hook costs every answer a promise (SQLite commits synchronously)
  app.addHook('onSend', (request, reply, payload, done) => {
    const failed = (error: unknown) => {
      reply.type('application/json; charset=utf-8').removeHeader('location')
      if (error instanceof TenantGoneError) {
        reply.code(404)
        return done(null, JSON.stringify(errors.refusal(request.url, 404, error.message, request.id)))
      }

      process.stderr.write(`sandbox: could not save the state: ${(error as Error).message}\n`)
      reply.code(500)
      done(
        null,
        JSON.stringify(errors.refusal(request.url, 500, 'The sandbox could not save this change; its outcome is unknown', request.id)),
      )
    }

    let saving
    try {
      saving = scopeOf(request).persist()
    } catch (error) {
      return failed(error)
    }

    if (saving) saving.then(() => done(null, payload), failed)
    else done(null, payload)
  })
}
