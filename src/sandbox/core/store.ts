/**
 * The sandbox's storage: one SQLite database (better-sqlite3), a file for `--state FILE` or an
 * in-memory one without it, so both run the same code. WAL journal with `synchronous=FULL`: a
 * committed change survives a kill -9 or a power cut. The file is held with an exclusive lock
 * while the sandbox runs, so a second sandbox on the same file is refused instead of sharing it.
 *
 * Transactions: the first write of a request opens one (`write`), and the core commits it before
 * the answer leaves (`commit`, from the onSend hook): one transaction per request that changes
 * something, durable before the client hears of it. A read opens none: it reads what is committed,
 * or what its own request wrote, and recently used documents from memory (document-cache.ts),
 * which every rollback empties.
 */
import Database from 'better-sqlite3'
import {closeSync, openSync} from 'node:fs'

import {DocumentCache} from './document-cache.js'
import {keepAlive} from './native-lifetime.js'
import {withNativeModule} from './native-module.js'
import {type Queries, queriesFor} from './queries.js'
import {migrate, schemaVersionOf} from './schema.js'

const Q = queriesFor('sqlite')

export class StateFileInUseError extends Error {}

export interface OpenedStore {
  store: SandboxStore
  /** true when the database was created now (no state yet) */
  created: boolean
}

export class SandboxStore {
  private readonly statements = new Map<string, Database.Statement>()
  /** what DocTables read and wrote, as the database has it in the current transaction */
  readonly cache = new DocumentCache()
  private readonly discardListeners: (() => Promise<void> | void)[] = []

  constructor(readonly db: Database.Database) {}

  /** A prepared statement, prepared once per SQL text (the texts are constants of the repositories). */
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (!statement) {
      statement = keepAlive(this.db.prepare(sql))
      this.statements.set(sql, statement)
    }

    return statement
  }

  /** The repositories' queries in this store's dialect. */
  readonly queries: Queries = Q

  /**
   * The executor the repositories run their queries through: one row, all rows, or a write (it
   * opens the request's transaction first) and the number of rows it changed. Promises, so a
   * PostgreSQL store can stand in; here each statement runs synchronously, before the promise.
   */
  async first<R = unknown>(sql: string, ...params: unknown[]): Promise<R | undefined> {
    return this.statement(sql).get(...params) as R | undefined
  }

  async rows<R = unknown>(sql: string, ...params: unknown[]): Promise<R[]> {
    return this.statement(sql).all(...params) as R[]
  }

  async change(sql: string, ...params: unknown[]): Promise<number> {
    this.write()
    return this.statement(sql).run(...params).changes
  }

  /** Called before every write: opens the transaction the core commits before the answer. */
  write(): void {
    if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE')
  }

  /** Makes what was written durable. When the commit fails, nothing of it stays, and the error is thrown. */
  commit(): void {
    if (!this.db.inTransaction) return
    try {
      this.db.exec('COMMIT')
    } catch (error) {
      this.discard()
      throw error
    }
  }

  /** Drops what the request wrote so far (it failed unexpectedly; SQLite may have rolled back already). */
  discard(): void {
    this.cache.clear()
    if (this.db.inTransaction) this.db.exec('ROLLBACK')
    for (const listener of this.discardListeners) {
      // an async listener (the clocks read their saved offsets) finishes in microtasks, before any other request runs
      Promise.resolve(listener()).catch((error: unknown) => process.stderr.write(`sandbox: ${(error as Error).message}\n`))
    }
  }

  /** Called after every rollback of a request's change: what is held in memory beside the database (the clock) goes back too. */
  onDiscard(listener: () => Promise<void> | void): void {
    this.discardListeners.push(listener)
  }

  /** A change made outside a request (a webhook delivery finished): committed at once, or with the request under way. */
  async apply(change: () => Promise<void>): Promise<void> {
    const own = !this.db.inTransaction
    await change()
    if (own) this.commit()
  }

  /** All or nothing within the request's transaction (a savepoint): used by imports, which validate as they go. */
  async atomically<T>(change: () => Promise<T>): Promise<T> {
    this.write()
    // a savepoint by hand: the change is async (its statements still run synchronously underneath)
    this.db.exec('SAVEPOINT atomically')
    try {
      const result = await change()
      this.db.exec('RELEASE atomically')
      return result
    } catch (error) {
      // rolled back to the savepoint: what the cache learnt since may be gone
      this.cache.clear()
      if (this.db.inTransaction) this.db.exec('ROLLBACK TO atomically; RELEASE atomically')
      throw error
    }
  }

  /** The handle a tenant's repositories are built from (core/tenants.ts): every query they make is filtered by its tenant. */
  forTenant(tenant: string): TenantStore {
    return new TenantStore(this, tenant)
  }

  /** The tenants that have rows. */
  async tenantsWithRows(): Promise<string[]> {
    return (await this.rows<{tenant: string}>(Q.tenantsWithRows)).map((row) => row.tenant)
  }

  /** Deletes every row of a tenant (within the request's transaction). */
  async dropTenant(tenant: string): Promise<void> {
    this.write()
    this.cache.clear()
    await this.change(Q.dropTenantDocs, tenant)
    await this.change(Q.dropTenantEvents, tenant)
  }

  close(): void {
    this.commit()
    this.db.close()
  }
}

/** The store as one tenant sees it: what DocTable and EventStore are built from. */
export class TenantStore {
  constructor(
    readonly store: SandboxStore,
    readonly tenant: string,
  ) {}
}

/**
 * Opens (creating it when missing, mode 0600) and migrates the database; `undefined` is an
 * in-memory one. Throws StateFileInUseError when another process holds the file.
 */
export function openStore(file?: string): OpenedStore {
  if (file) closeSync(openSync(file, 'a', 0o600))
  // No busy wait: a file held by another sandbox is refused at once.
  const db = keepAlive(withNativeModule(() => new Database(file ?? ':memory:', {timeout: 0})))
  try {
    // Settings through exec, not pragma(), which would leave a statement behind (native-lifetime.ts).
    // Exclusive before the first read: the WAL then needs no shared-memory (-shm) file.
    if (file) db.exec('PRAGMA locking_mode = EXCLUSIVE')
    const found = schemaVersionOf(db, file ?? ':memory:')
    if (file) db.exec('PRAGMA journal_mode = WAL')

    db.exec('PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON')
    migrate(db, found)
    // Takes the exclusive lock now (and keeps it), rather than at the first request.
    db.exec('BEGIN IMMEDIATE; COMMIT')
    return {store: new SandboxStore(db), created: found === 0}
  } catch (error) {
    db.close()
    if ((error as {code?: string}).code === 'SQLITE_BUSY') {
      throw new StateFileInUseError(`the state file ${file} is in use by another sandbox; stop it, or start with another --state file`)
    }

    throw error
  }
}

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
    this.cached = `${handle.tenant}\u0000${collection}`
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
    const rows = await this.store.rows<{doc: string; key: string}>(this.Q.listDocs, this.tenant, this.collection)
    return rows.map((r) => [r.key, JSON.parse(r.doc) as T])
  }

  async get(key: string): Promise<T | undefined> {
    const text = await this.text(key)
    return text === undefined ? undefined : (JSON.parse(text) as T)
  }

  async has(key: string): Promise<boolean> {
    if (this.store.cache.get(this.cached, key) !== undefined) return true
    return (await this.store.first(this.Q.hasDoc, this.tenant, this.collection, key)) !== undefined
  }

  async keys(): Promise<string[]> {
    return (await this.entries()).map(([key]) => key)
  }

  /** Adds or replaces the record under `key` (a replaced record keeps its place in the order). */
  async set(key: string, value: T): Promise<void> {
    const text = JSON.stringify(value)
    this.store.cache.forget(this.cached, key)
    await this.store.change(this.Q.putDoc, this.tenant, this.collection, key, text)
    this.store.cache.remember(this.cached, key, text)
  }

  async values(): Promise<T[]> {
    return (await this.entries()).map(([, value]) => value)
  }

  /** The stored text of a record: from the cache, else from the database (and then cached). */
  private async text(key: string): Promise<string | undefined> {
    const cached = this.store.cache.get(this.cached, key)
    if (cached !== undefined) return cached
    const row = await this.store.first<{doc: string}>(this.Q.getDoc, this.tenant, this.collection, key)
    if (row) this.store.cache.remember(this.cached, key, row.doc)
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
