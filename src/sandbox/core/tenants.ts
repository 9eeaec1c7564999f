/**
 * Tenants: one sandbox serves many, each isolated from the others (its own users, sessions,
 * events, checkouts, webhooks, clock, faults, keys...). Their URLs are under `/t/<id>`
 * (tenant-ids.ts); the default tenant is the unprefixed origin.
 *
 * The registry (id, creation time, digests of its two checkout keys) is a collection of the
 * database, so it is committed with the request that changed it and survives restarts. Beside
 * it, the core holds each tenant's runtime (its context, clock, fault queue, event log, webhook
 * deliveries), opened on first use (`openTenant`). The database decides: a tenant whose registry
 * row is gone (a creation rolled back, a deletion) is dropped from memory at its next lookup.
 *
 * A request carries its tenant as `request.tenant` (fastify's `decorateRequest`), set in the one
 * onRequest hook of `registerTenantResolution` from the `/t/<id>` its URL arrived with.
 */
import type {FastifyInstance, FastifyRequest} from 'fastify'

import {createHash, randomBytes, randomUUID} from 'node:crypto'

import type {KeyKindOf, ModuleState, SandboxContext, SandboxEvent, SandboxModule, SandboxState} from '../types.js'
import type {SandboxClock} from './clock.js'
import type {ErrorShapes} from './error-shapes.js'

import {SANDBOX_KEYS, SANDBOX_MAX_TENANTS} from '../../services/sandbox-defaults.js'
import {callbackRefusal, deliveryRefusal} from './callback-targets.js'
import {EventLog} from './event-log.js'
import {FaultQueue, FAULTS_COLLECTION, FAULTS_KEY} from './faults.js'
import {createSessions} from './sessions.js'
import {CLOCK_COLLECTION, CLOCK_KEY, type PendingDeliveries, type SavedClock} from './state.js'
import {type DocRef, DocTable, type RouteDoc, type SandboxStore, type TenantStore} from './store.js'
import {DEFAULT_TENANT, newTenantId, splitTenantUrl, tenantPath} from './tenant-ids.js'
import {WebhookSender} from './webhooks.js'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The tenant this request is for, set by the one onRequest hook of `registerTenantResolution`
     * before any route runs; null in the hooks before it (the control guard, tenant shares).
     */
    tenant: null | Tenant
  }
}

/** At most this many tenants besides the default one: each holds memory while the sandbox runs (see docs/architecture.md). */
export const MAX_TENANTS = SANDBOX_MAX_TENANTS

export type KeyKind = 'public' | 'secret'

/** Everything of one tenant the core holds while the sandbox runs. */
export interface Tenant {
  id: string
  /** what its handlers get: its state, clock, sessions, origin (with its /t/<id> path), events */
  ctx: SandboxContext
  clock: SandboxClock
  savedClock: SavedClock
  /** by service name */
  states: ReadonlyMap<string, ModuleState>
  pending: PendingDeliveries
  faults: FaultQueue
  /** its recent events, for GET /__sandbox/events */
  events: EventLog
  /** sends its deliveries' attempts */
  deliveries: WebhookSender
  /** the kind of a checkout API key when it is one of this tenant's; undefined for any other */
  keyKind(key: string): KeyKind | undefined
}

/** What every tenant's runtime shares: the modules, the database, the origin, and where its events go. */
export interface TenantRuntimeDeps {
  modules: readonly SandboxModule[]
  store: SandboxStore
  /** The sandbox's origin, known once it listens. */
  origin(): string
  /** Hear each event once the change that raised it is durable. */
  listeners: readonly ((event: SandboxEvent) => void)[]
  /** Claims and sends one due webhook delivery of a tenant (due-deliveries.ts). */
  deliver(tenant: Tenant, deliveryId: string): void
  /** Webhooks to loopback and private addresses are refused too (callback-targets.ts). */
  refusePrivateCallbacks: boolean
}

/** A tenant's rows, as opened from the database: its clock, its handle, its pending deliveries, its modules' state. */
export interface TenantParts {
  clock: SandboxClock
  handle: TenantStore
  pending: PendingDeliveries
  savedClock: SavedClock
  states: Map<string, ModuleState>
}

const newId = (prefix?: string) => (prefix ? `${prefix}_${randomBytes(12).toString('hex')}` : randomUUID())
const hex = (length: number) =>
  randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length)

/** A tenant's runtime over its rows: the context its handlers get, its clock, faults, events and webhook deliveries. */
export function openTenant(id: string, parts: TenantParts, keyKind: KeyKindOf, deps: TenantRuntimeDeps): Tenant {
  const {modules, store} = deps
  const callbackRules = {refusePrivate: deps.refusePrivateCallbacks}
  const state = Object.fromEntries(parts.states) as unknown as SandboxState
  const events = new EventLog(parts.handle)
  const tenantClock = parts.clock
  const ctx: SandboxContext = {
    state,
    clock: tenantClock,
    sessions: createSessions(() => sessionTable(modules, ctx), tenantClock),
    origin: () => deps.origin() + tenantPath(id),
    id: newId,
    hex,
    apiKeyKind: keyKind,
    async emit(event) {
      await events.add({...event, at: tenantClock.now().toISOString()})
      // The deliveries it is due are stored with the change that raised it, so they survive a restart.
      const due: string[] = []
      for (const m of modules) {
        const url = await m.webhookTarget?.(event, ctx)
        if (url) due.push(await parts.pending.add(event, url))
      }

      // listeners (webhook delivery) hear of it once the change that raised it is durable
      store.afterCommit(() => {
        for (const l of deps.listeners) l(event)
        for (const deliveryId of due) deps.deliver(tenant, deliveryId)
      })
    },
    commitNow: (change) => store.commitNow(change),
    schedule: (service, at, work, key) => parts.pending.schedule(service, work, at, tenantClock.offset, key),
    unschedule: (service, key) => parts.pending.unschedule(service, key),
    callbackRefusal: (url) => callbackRefusal(url, callbackRules),
  }
  const tenant: Tenant = {
    ctx,
    deliveries: new WebhookSender((url) => deliveryRefusal(url, callbackRules)),
    events,
    faults: new FaultQueue(parts.handle),
    id,
    keyKind,
    ...parts,
  }
  return tenant
}

function sessionTable(modules: readonly SandboxModule[], ctx: SandboxContext): NonNullable<ReturnType<NonNullable<SandboxModule['sessionTable']>>> {
  for (const m of modules) if (m.sessionTable) return m.sessionTable(ctx)
  throw new Error('No sandbox module keeps sessions')
}

/** A tenant as the registry keeps it: its keys only as SHA-256 digests, so no file or export holds a key that opens it. */
export interface TenantRecord {
  id: string
  createdAt: string
  seeded: boolean
  /** real time: from then on the tenant is gone, and any replica removes its rows (a CI job cancelled before its delete leaks nothing) */
  expiresAt?: string
  keyDigests: {publicKey: string; secretKey: string}
}

/** A new tenant as its creator sees it, once: its keys in clear. */
export interface CreatedTenant {
  tenant: Tenant
  record: TenantRecord
  keys: {publicKey: string; secretKey: string}
}

export class TenantLimitError extends Error {}

/** A request's tenant was deleted while it was under way: what it wrote is dropped, and it answers 404. */
export class TenantGoneError extends Error {
  readonly statusCode = 404

  constructor(id: string) {
    super(`No tenant ${id} on this sandbox`)
  }
}

const digestOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('base64url')

const expired = (record: TenantRecord) => record.expiresAt !== undefined && Date.parse(record.expiresAt) <= Date.now()

/** The default tenant's API keys: the published test keys (a Map: the key looked up is whatever a client sends). */
const PUBLISHED_KEYS = new Map<string, KeyKind>([
  [SANDBOX_KEYS.publicKey, 'public'],
  [SANDBOX_KEYS.secretKey, 'secret'],
])

export const publishedKeyKind = (key: string): KeyKind | undefined => PUBLISHED_KEYS.get(key)

export function keyKindOf(record: TenantRecord): (key: string) => KeyKind | undefined {
  const kinds = new Map<string, KeyKind>([
    [record.keyDigests.publicKey, 'public'],
    [record.keyDigests.secretKey, 'secret'],
  ])
  return (key) => kinds.get(digestOf(key))
}

/** Opens a tenant's runtime over its rows (server.ts builds the context). */
export type OpenTenant = (record: TenantRecord) => Promise<Tenant>

const REGISTRY_COLLECTION = 'core.tenants'

/**
 * How long a tenant this process holds open may stay unused once it has left the registry (another
 * replica deleted it) before this process lets go of it: far longer than a creation under way takes
 * to commit, which the registry read of another connection does not see yet.
 */
export const LET_GO_AFTER_MS = 60_000

/**
 * What every request of a tenant reads before its handler: its registry row, fault queue and clock,
 * in one statement on PostgreSQL (`prefetch`), once when it arrives and, for a write, again under its lock.
 */
function tenantDocs(id: string): DocRef[] {
  const own = [
    {collection: FAULTS_COLLECTION, key: FAULTS_KEY, tenant: id},
    {collection: CLOCK_COLLECTION, key: CLOCK_KEY, tenant: id},
  ]
  return id === DEFAULT_TENANT ? own : [{collection: REGISTRY_COLLECTION, key: id, tenant: DEFAULT_TENANT}, ...own]
}

export class Tenants {
  private readonly registry: DocTable<TenantRecord>
  private readonly live = new Map<string, Tenant>()
  /** when each tenant of `live` was last asked for (real time) */
  private readonly usedAt = new Map<string, number>()

  constructor(
    private readonly store: SandboxStore,
    readonly defaultTenant: Tenant,
    private readonly open: OpenTenant,
  ) {
    this.registry = new DocTable(store.forTenant(DEFAULT_TENANT), REGISTRY_COLLECTION)
    // a rolled-back request moves every clock it moved back to where its saved offset is
    store.onDiscard(async () => {
      for (const tenant of [defaultTenant, ...this.live.values()]) tenant.clock.restore((await tenant.savedClock.get()) ?? 0)
    })
  }

  /** Rows of no tenant: written by a request of a tenant still under way when it was deleted. No one can reach them (ids are never reused); they go at start. */
  async dropOrphans(): Promise<void> {
    for (const id of await this.store.tenantsWithRows()) if (id !== DEFAULT_TENANT && !(await this.registry.has(id))) await this.store.dropTenant(id)
    this.store.commit()
  }

  /** The tenant of that id, if it exists now. */
  async get(id: string): Promise<Tenant | undefined> {
    if (id === DEFAULT_TENANT) return this.defaultTenant
    const record = await this.registry.get(id)
    if (!record || expired(record)) {
      this.forget(id)
      return undefined
    }

    let tenant = this.live.get(id)
    if (!tenant) this.live.set(id, (tenant = await this.open(record)))
    this.usedAt.set(id, Date.now())
    return tenant
  }

  /** The tenant of that id if this process has it open (the default one always), read from nothing: it may be gone since. */
  known(id: string): Tenant | undefined {
    if (id === DEFAULT_TENANT) return this.defaultTenant
    const tenant = this.live.get(id)
    if (tenant) this.usedAt.set(id, Date.now())
    return tenant
  }

  /** The tenants opened so far, the default one first. */
  opened(): Tenant[] {
    return [this.defaultTenant, ...this.live.values()]
  }

  /** The tenants that have not expired. */
  async records(): Promise<TenantRecord[]> {
    return (await this.registry.values()).filter((record) => !expired(record))
  }

  /**
   * Removes every expired tenant with its rows, each in a transaction of its own; another replica
   * may be removing them too. And lets go of the tenants this process holds open that are no longer
   * registered (`now`: the real time to judge how long each has been unused by).
   */
  async removeExpired(now = Date.now()): Promise<void> {
    let records: TenantRecord[] = []
    await this.store.commitNow(async () => {
      records = await this.registry.values()
    })
    this.letGoOfRemoved(new Set(records.map((record) => record.id)), now)
    for (const {id} of records.filter((record) => expired(record))) {
      await this.store.commitNow(async () => {
        await this.store.beginWrite(id)
        await this.delete(id)
      })
    }
  }

  async record(id: string): Promise<TenantRecord | undefined> {
    return this.registry.get(id)
  }

  /** A new tenant with a fresh state (and demo data when `seed`), in the request's transaction. Throws TenantLimitError past MAX_TENANTS. */
  async create(options: {now: Date; seed(tenant: Tenant): Promise<void>; seeded: boolean; ttlMs?: number}): Promise<CreatedTenant> {
    if ((await this.registry.count()) >= MAX_TENANTS) {
      throw new TenantLimitError(
        `This sandbox has ${MAX_TENANTS} tenants, its limit: delete one (sandbox tenant list, sandbox tenant delete ID), or wait for one created with --ttl to expire; give CI tenants a --ttl so a cancelled job leaks none`,
      )
    }

    let id = newTenantId()
    while (await this.registry.has(id)) id = newTenantId()
    const keys = {publicKey: `pk-tenant-${randomBytes(18).toString('base64url')}`, secretKey: `sk-tenant-${randomBytes(18).toString('base64url')}`}
    const record: TenantRecord = {
      id,
      createdAt: options.now.toISOString(),
      seeded: options.seeded,
      ...(options.ttlMs === undefined ? {} : {expiresAt: new Date(Date.now() + options.ttlMs).toISOString()}),
      keyDigests: {publicKey: digestOf(keys.publicKey), secretKey: digestOf(keys.secretKey)},
    }
    await this.registry.set(id, record)
    const tenant = (await this.get(id))!
    for (const state of tenant.states.values()) await state.reset()
    if (options.seeded) await options.seed(tenant)
    return {keys, record, tenant}
  }

  /**
   * Deletes a tenant and every row of it; false when there is none of that id. On PostgreSQL it
   * first takes the tenant's lock, so the tenant's writes under way (on any replica) commit before
   * it, and go with it; a write that commits after finds the tenant gone (`holds`).
   */
  async delete(id: string): Promise<boolean> {
    await this.store.beginWrite(id)
    if ((await this.registry.reread(id)) === undefined) return false
    await this.registry.delete(id)
    await this.store.dropTenant(id)
    this.forget(id)
    return true
  }

  /**
   * Whether the tenant still exists, asked just before a change of it is committed: under the
   * tenant's lock (PostgreSQL), so a deletion is either wholly before the answer (false: the change
   * is dropped, 404) or waits for the commit (and then deletes what it wrote).
   */
  async holds(id: string): Promise<boolean> {
    if (id === DEFAULT_TENANT) return true
    // a write request read the registry under its lock already (readyForHandler), and the lock holds it current
    const current = this.store.holdsLock(id)
    await this.store.beginWrite(id)
    if ((await (current ? this.registry.get(id) : this.registry.reread(id))) !== undefined) return true
    this.forget(id)
    return false
  }

  /**
   * A tenant another replica deleted stays open here until this process is asked for it again,
   * which may be never: its states and its webhook connections would be held for as long as the
   * process runs, one more for every tenant a team's CI creates and deletes.
   */
  private letGoOfRemoved(registered: ReadonlySet<string>, now: number): void {
    for (const id of this.live.keys()) if (!registered.has(id) && now - (this.usedAt.get(id) ?? 0) >= LET_GO_AFTER_MS) this.forget(id)
  }

  private forget(id: string): void {
    const tenant = this.live.get(id)
    if (!tenant) return
    this.live.delete(id)
    this.usedAt.delete(id)
    // deliveries under way end on their own; their connections close after them
    tenant.deliveries.settle().catch(() => undefined)
  }
}

/** The documents of its tenant a request's route will read (its module's `prefetch`). */
export type RouteDocs = (request: FastifyRequest) => readonly RouteDoc[]

/** A request that changes nothing: it takes no tenant lock and no transaction. */
export const isRead = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD'

/** The tenant's documents and those the route names: what a request reads before its handler. */
const requestDocs = (id: string, request: FastifyRequest, routeDocs: RouteDocs): DocRef[] => [...tenantDocs(id), ...routeDocs(request).map((doc) => ({...doc, tenant: id}))]

/**
 * Just before a route's handler: a request that writes waits for its tenant's other writes (from
 * any replica) before it reads anything, and the clock is read as the database has it then
 * (another replica may have moved it). A write finds out here, under the lock, whether its tenant
 * is still there (it read nothing when it arrived: registerTenantResolution).
 */
export async function readyForHandler(request: FastifyRequest, tenant: Tenant, store: SandboxStore, routeDocs: RouteDocs, tenants: Tenants): Promise<void> {
  if (!store.shared) return
  if (!isRead(request)) {
    await store.beginWrite(tenant.id)
    await store.prefetch(requestDocs(tenant.id, request, routeDocs))
    if (!(await tenants.get(tenant.id))) throw new TenantGoneError(tenant.id)
  }

  tenant.clock.restore((await tenant.savedClock.get()) ?? 0)
}

/** The id of the tenant a request's URL named (the default tenant's for an unprefixed URL), read from the URL as it arrived, before it is resolved. */
export function tenantNamed(request: FastifyRequest): string {
  return splitTenantUrl(request.originalUrl)?.tenant ?? DEFAULT_TENANT
}

/**
 * fastify's `rewriteUrl`: `/t/<id>/...` is routed as `/...`; the id stays in the request's
 * `originalUrl` (`tenantNamed`). Every route, hook and guard then sees the same paths for every
 * tenant: the control guard's `/__sandbox` test included. A malformed id is left in the URL, which
 * no route matches (404).
 */
export function rewriteTenantUrl(raw: {url?: string}): string {
  const url = raw.url ?? '/'
  return splitTenantUrl(url)?.url ?? url
}

/**
 * Resolves each request's tenant before its route runs (after the control guard, so a control
 * route of any tenant asks for the token first). A tenant that does not exist is a 404 in the
 * service's error shape.
 */
export function registerTenantResolution(app: FastifyInstance, tenants: Tenants, errors: ErrorShapes, store: SandboxStore, routeDocs: RouteDocs): void {
  app.decorateRequest('tenant', null)
  app.addHook('onRequest', async (request, reply) => {
    const id = tenantNamed(request)
    // a write reads its tenant's rows once, under its lock (readyForHandler), when this process has
    // the tenant open: a round trip fewer; its faults are looked at there too (registerOperation)
    const known = store.shared && !isRead(request) ? tenants.known(id) : undefined
    if (known) {
      request.tenant = known
      return
    }

    await store.within(request.raw, async () => {
      // a read's route documents come now; a write's are read again under its tenant's lock anyway
      await store.prefetch(store.shared && isRead(request) ? requestDocs(id, request, routeDocs) : tenantDocs(id))
      const tenant = await tenants.get(id)
      if (!tenant) {
        reply.code(404).send(errors.refusal(request.url, 404, `No tenant ${id} on this sandbox`, request.id))
        return
      }

      request.tenant = tenant
    })
    return reply.sent ? reply : undefined
  })
  // SQLite has no lock to take nor clock to read: one connection, one process
  if (!store.shared) return
  // after the body is read (a slow upload holds no lock); an operation does this itself once its
  // faults are applied, so a delayed write holds none while it waits
  app.addHook('preHandler', async (request) => {
    const {tenant} = request
    if (tenant && !(request.routeOptions.config as {operation?: boolean}).operation) {
      await store.within(request.raw, () => readyForHandler(request, tenant, store, routeDocs, tenants))
    }
  })
}

/** The request's tenant; the default one for a request that was not resolved (none is: every request passes the hook). */
export function tenantOf(request: FastifyRequest, tenants: Tenants): Tenant {
  return request.tenant ?? tenants.defaultTenant
}

/** The kind of checkout key a request's tenant gives `key`, for code outside the core's routes (CORS). */
export function requestKeyKind(request: FastifyRequest, key: string): KeyKind | undefined {
  return request.tenant?.keyKind(key)
}
