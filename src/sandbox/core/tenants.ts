/**
 * The registry of tenants: one sandbox serves many, each isolated from the others (its own users,
 * sessions, events, checkouts, webhooks, clock, faults, keys...). Their URLs are under `/t/<id>`
 * (tenant-ids.ts); the default tenant is the unprefixed origin.
 *
 * The registry (id, creation time, digests of its two checkout keys) is a collection of the
 * database, so it is committed with the request that changed it and survives restarts. Beside
 * it, the core holds each tenant's runtime (tenant-runtime.ts), opened on first use. The database
 * decides: a tenant whose registry row is gone (a creation rolled back, a deletion) is dropped from
 * memory at its next lookup. A request finds its tenant through its scope (request-scope.ts).
 */
import {randomBytes} from 'node:crypto'

import {SANDBOX_MAX_TENANTS} from '../../services/sandbox-defaults.js'
import {FAULTS_COLLECTION, FAULTS_KEY} from './faults.js'
import {CLOCK_COLLECTION, CLOCK_KEY} from './state.js'
import {type DocRef, DocTable, type SandboxStore} from './store.js'
import {DEFAULT_TENANT, newTenantId} from './tenant-ids.js'
import {digestOf, type KeyDigests, type Tenant, type TenantRuntime} from './tenant-runtime.js'

/** At most this many tenants besides the default one: each holds memory while the sandbox runs (see docs/architecture.md). */
export const MAX_TENANTS = SANDBOX_MAX_TENANTS

/** A tenant as the registry keeps it: its keys only as SHA-256 digests, so no file or export holds a key that opens it. */
export interface TenantRecord {
  id: string
  createdAt: string
  seeded: boolean
  /** real time: from then on the tenant is gone, and any replica removes its rows (a CI job cancelled before its delete leaks nothing) */
  expiresAt?: string
  keyDigests: KeyDigests
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

const expired = (record: TenantRecord) => record.expiresAt !== undefined && Date.parse(record.expiresAt) <= Date.now()

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
export function tenantDocs(id: string): DocRef[] {
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
    private readonly runtime: TenantRuntime,
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
    if (!tenant) this.live.set(id, (tenant = await this.runtime.openRecord(record)))
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
    // a write request read the registry under its lock already (RequestScope.ready), and the lock holds it current
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
