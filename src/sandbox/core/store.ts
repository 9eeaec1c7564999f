/**
 * The sandbox's storage as its repositories use it, whatever the engine: the store interface, and
 * DocTable, the Map-like repository of records stored whole as JSON.
 */
import type {DocumentCache} from './document-cache.js'
import type {Queries} from './queries.js'
import type {Engine} from './schema.js'

/**
 * The sandbox database as the repositories and the core see it: SQLite (sqlite-store.ts, one
 * process) or PostgreSQL (postgres-store.ts, shared by replicas).
 *
 * Every request runs `within` its own scope (`newScope`, held by the request: request-scope.ts): on
 * PostgreSQL the scope holds the request's transaction and read cache, found by the repositories
 * through AsyncLocalStorage. SQLite has one connection and one transaction at a time, so its scopes
 * are all the same one.
 */
export interface SandboxStore {
  readonly engine: Engine
  /** several processes share the database: what others change (a tenant's clock) is read at each request */
  readonly shared: boolean
  /** the repositories' queries in this store's dialect */
  readonly queries: Queries
  /** what DocTables read and wrote, as the database has it in the current transaction */
  readonly cache: DocumentCache

  /** The executor: one row, all rows, rows one by one, or a write (it opens the transaction first) and the number of rows it changed. */
  first<R = unknown>(sql: string, ...params: unknown[]): Promise<R | undefined>
  rows<R = unknown>(sql: string, ...params: unknown[]): Promise<R[]>
  iterate<R = unknown>(sql: string, ...params: unknown[]): AsyncIterable<R> | Iterable<R>
  change(sql: string, ...params: unknown[]): Promise<number>
  /** A write whose result nobody reads: PostgreSQL sends it with the transaction's next statement (at the latest its COMMIT). */
  changeLater(sql: string, ...params: unknown[]): Promise<void> | void
  /** Reads these documents into the scope's cache in one statement (PostgreSQL; SQLite reads each when asked, at no cost). */
  prefetch(docs: readonly DocRef[]): Promise<void> | void

  /** A new scope for a request: its transaction, its cache, its after-commit work (request-scope.ts holds it). */
  newScope(): StoreScope
  /** Runs `work` in `scope`: what the repositories read and write in it is the scope's. */
  within<T>(scope: StoreScope, work: () => T): T
  /**
   * The request will write: opens its transaction now, before it reads anything, and waits for the
   * other writes of its tenant (from any replica) to finish first, so the money rules read what they
   * committed (PostgreSQL: the lock goes with the transaction's next statement, so it is taken
   * before anything is read). SQLite's one connection gives the same order without asking.
   */
  beginWrite(tenant: string): Promise<void> | void
  /** True when the scope's transaction holds the tenant's lock (taken by beginWrite); SQLite has none. */
  holdsLock(tenant: string): boolean
  /** True when the scope has a transaction open: it wrote, or it is a write request (PostgreSQL). */
  writing(): boolean
  /** Makes what the scope wrote durable, then runs its after-commit work. When the commit fails, nothing of it stays, and the error is thrown. */
  commit(): Promise<void> | void
  /** Drops what the scope wrote so far (it failed unexpectedly), and its after-commit work. */
  discard(): Promise<void> | void
  /** The request's client went away: what it wrote is dropped now, and it may write no more (PostgreSQL: its tenant's lock is let go at once). */
  abandon(): Promise<void> | void
  /** Runs `work` once the scope's change is committed (never, if it is rolled back). */
  afterCommit(work: () => void): void
  /** Called after every rollback of a request's change: what is held in memory beside the database (the clock) goes back too. */
  onDiscard(listener: () => Promise<void> | void): void
  /**
   * One statement made outside any request (a webhook delivery claimed, finished), committed on its
   * own; its rows (RETURNING). On SQLite it joins a request's transaction under way, if any: the
   * one connection has one transaction.
   */
  runAlone<R = unknown>(sql: string, ...params: unknown[]): Promise<R[]>
  /** A change in a transaction of its own, committed before it returns (event generation commits batch by batch). */
  commitNow(change: () => Promise<void>): Promise<void>
  /** All or nothing within the request's transaction (a savepoint): used by imports, which validate as they go. */
  atomically<T>(change: () => Promise<T>): Promise<T>

  /** The handle a tenant's repositories are built from: every query they make is filtered by its tenant. */
  forTenant(tenant: string): TenantStore
  /** The tenants that have rows. */
  tenantsWithRows(): Promise<string[]>
  /** Deletes every row of a tenant (within the request's transaction). */
  dropTenant(tenant: string): Promise<void>
  close(): Promise<void> | void
}

/** A request's scope in the store, as `newScope` made it: what it holds is the store's own. */
export type StoreScope = object

/** The store as one tenant sees it: what DocTable and EventStore are built from. */
export class TenantStore {
  constructor(
    readonly store: SandboxStore,
    readonly tenant: string,
  ) {}
}

/** What the cache holds for a record that is not stored: no stored document is an empty text (JSON never is). */
export const ABSENT = ''

/** A document by its address; a key of null: every document of the collection; a KeyFrom: the document another one names. */
export interface DocRef {
  tenant: string
  collection: string
  key: KeyFrom | null | string
}

/** A document of the request's own tenant (a module's `prefetch`, `dueDocs`): the tenant is added by the core. */
export type RouteDoc = Omit<DocRef, 'tenant'>

/** The key a field of another document of the tenant holds (a session's user): read in the same statement as that document. */
export interface KeyFrom {
  collection: string
  key: string
  field: string
}

/** The cache's name for a tenant's collection. */
export const cacheName = (tenant: string, collection: string) => `${tenant}\u0000${collection}`

/**
 * Records of one kind (a collection), stored whole as JSON and addressed by key: the Map-like
 * repository the modules build their state from. Reads return fresh copies; a changed record is
 * saved with `set`. Iteration follows insertion order, as a Map's does.
 */
export class DocTable<T> {
  private readonly store: SandboxStore
  private readonly tenant: string
  private readonly Q: Queries
  /** the cache's name for this tenant's collection */
  private readonly cached: string

  constructor(
    handle: TenantStore,
    readonly collection: string,
  ) {
    this.store = handle.store
    this.tenant = handle.tenant
    this.Q = handle.store.queries
    this.cached = cacheName(handle.tenant, collection)
  }

  async count(): Promise<number> {
    const row = await this.store.first<{n: number}>(this.Q.countDocs, this.tenant, this.collection)
    return Number(row?.n ?? 0)
  }

  async clear(): Promise<void> {
    this.store.cache.forgetCollection(this.cached)
    await this.store.change(this.Q.clearDocs, this.tenant, this.collection)
  }

  async delete(key: string): Promise<boolean> {
    this.store.cache.forget(this.cached, key)
    return (await this.store.change(this.Q.deleteDoc, this.tenant, this.collection, key)) > 0
  }

  async entries(): Promise<[string, T][]> {
    const listed = this.store.cache.listed(this.cached)
    if (listed) return listed.map(([key, doc]) => [key, JSON.parse(doc) as T])
    const rows = await this.store.rows<{doc: string; key: string}>(this.Q.listDocs, this.tenant, this.collection)
    return rows.map((r) => [r.key, JSON.parse(r.doc) as T])
  }

  async get(key: string): Promise<T | undefined> {
    const text = await this.text(key)
    return text === undefined ? undefined : (JSON.parse(text) as T)
  }

  async has(key: string): Promise<boolean> {
    const cached = this.store.cache.get(this.cached, key)
    if (cached !== undefined) return cached !== ABSENT
    return (await this.store.first(this.Q.hasDoc, this.tenant, this.collection, key)) !== undefined
  }

  async keys(): Promise<string[]> {
    return (await this.entries()).map(([key]) => key)
  }

  /** Adds or replaces the record under `key` (a replaced record keeps its place in the order). */
  async set(key: string, value: T): Promise<void> {
    const text = JSON.stringify(value)
    this.store.cache.forget(this.cached, key)
    await this.store.changeLater(this.Q.putDoc, this.tenant, this.collection, key, text)
    this.store.cache.remember(this.cached, key, text)
  }

  async values(): Promise<T[]> {
    return (await this.entries()).map(([, value]) => value)
  }

  /** The record as the database has it now, whatever this request read of it before. */
  async reread(key: string): Promise<T | undefined> {
    this.store.cache.forget(this.cached, key)
    return this.get(key)
  }

  /** The stored text of a record: from the cache, else from the database (and then cached). */
  private async text(key: string): Promise<string | undefined> {
    const cached = this.store.cache.get(this.cached, key)
    if (cached !== undefined) return cached === ABSENT ? undefined : cached
    const row = await this.store.first<{doc: string}>(this.Q.getDoc, this.tenant, this.collection, key)
    // a record that is not there is remembered too: every request asks for the fault queue, which is mostly absent
    this.store.cache.remember(this.cached, key, row?.doc ?? ABSENT)
    return row?.doc
  }
}

/** One value of a collection under a fixed key (the checkout customization, ...), with a default when unset. */
export class DocCell<T> {
  constructor(
    private readonly table: DocTable<T>,
    private readonly key: string,
    private readonly initial: () => T,
  ) {}

  async get(): Promise<T> {
    return (await this.table.get(this.key)) ?? this.initial()
  }

  async set(value: T): Promise<void> {
    await this.table.set(this.key, value)
  }
}
