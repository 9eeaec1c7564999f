/**
 * The sandbox's embedded storage: one SQLite database (node:sqlite or better-sqlite3: sqlite-driver.ts), a file for `--state FILE`
 * or an in-memory one without it, so both run the same code. WAL journal with `synchronous=FULL`:
 * a committed change survives a kill -9 or a power cut. The file is held with an exclusive lock
 * while the sandbox runs, so a second sandbox on the same file is refused instead of sharing it.
 *
 * Transactions: the first write of a request opens one (`write`), and the core commits it before
 * the answer leaves (`commit`, from the onSend hook): one transaction per request that changes
 * something, durable before the client hears of it. A read opens none: it reads what is committed,
 * or what its own request wrote, and recently used documents from memory (document-cache.ts),
 * which every rollback empties. Statements run synchronously, so every await of a request resolves
 * in microtasks and no other request runs inside its transaction: one scope serves them all.
 */
import {closeSync, openSync} from 'node:fs'
import {setImmediate} from 'node:timers/promises'

import {DocumentCache} from './document-cache.js'
import {keepAlive} from './native-lifetime.js'
import {type Queries, queriesFor} from './queries.js'
import {migrate, schemaVersionOf} from './schema.js'
import {openSqlite, sqliteCode, type SqliteDatabase, type SqliteStatement} from './sqlite-driver.js'
import {type SandboxStore, TenantStore} from './store.js'

const Q = queriesFor('sqlite')

export class StateFileInUseError extends Error {}

export interface OpenedStore {
  store: SqliteStore
  /** true when the database was created now (no state yet) */
  created: boolean
}

export class SqliteStore implements SandboxStore {
  readonly engine = 'sqlite' as const
  readonly shared = false
  readonly queries: Queries = Q
  readonly cache = new DocumentCache()
  private readonly statements = new Map<string, SqliteStatement>()
  private readonly discardListeners: (() => Promise<void> | void)[] = []
  private committed: (() => void)[] = []

  constructor(readonly db: SqliteDatabase) {}

  /** A prepared statement, prepared once per SQL text (the texts are constants of the repositories). */
  statement(sql: string): SqliteStatement {
    let statement = this.statements.get(sql)
    if (!statement) {
      statement = keepAlive(this.db.prepare(sql))
      this.statements.set(sql, statement)
    }

    return statement
  }

  async first<R = unknown>(sql: string, ...params: unknown[]): Promise<R | undefined> {
    return this.statement(sql).get(...params) as R | undefined
  }

  async rows<R = unknown>(sql: string, ...params: unknown[]): Promise<R[]> {
    return this.statement(sql).all(...params) as R[]
  }

  /** Row by row (the iterator is kept alive: native-lifetime.ts). */
  iterate<R = unknown>(sql: string, ...params: unknown[]): Iterable<R> {
    return keepAlive(this.statement(sql).iterate(...params)) as Iterable<R>
  }

  async change(sql: string, ...params: unknown[]): Promise<number> {
    this.write()
    return Number(this.statement(sql).run(...params).changes)
  }

  async changeLater(sql: string, ...params: unknown[]): Promise<void> {
    await this.change(sql, ...params)
  }

  prefetch(): void {}

  holdsLock(): boolean {
    return false
  }

  /** One connection, one transaction: every request's scope is the store itself. */
  newScope(): object {
    return this
  }

  within<T>(_scope: object, work: () => T): T {
    return work()
  }

  beginWrite(): void {}

  writing(): boolean {
    return this.db.inTransaction
  }

  /** Called before every write: opens the transaction the core commits before the answer. */
  write(): void {
    if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE')
  }

  commit(): void {
    if (this.db.inTransaction) {
      try {
        this.db.exec('COMMIT')
      } catch (error) {
        this.discard()
        throw error
      }
    }

    const committed = this.committed
    this.committed = []
    for (const work of committed) work()
  }

  discard(): void {
    this.cache.clear()
    this.committed = []
    if (this.db.inTransaction) this.db.exec('ROLLBACK')
    for (const listener of this.discardListeners) {
      // an async listener (the clocks read their saved offsets) finishes in microtasks, before any other request runs
      Promise.resolve(listener()).catch((error: unknown) => process.stderr.write(`sandbox: ${(error as Error).message}\n`))
    }
  }

  /** Nothing to let go: SQLite's one transaction is the next commit's or rollback's. */
  abandon(): void {}

  afterCommit(work: () => void): void {
    this.committed.push(work)
  }

  onDiscard(listener: () => Promise<void> | void): void {
    this.discardListeners.push(listener)
  }

  async runAlone<R = unknown>(sql: string, ...params: unknown[]): Promise<R[]> {
    // synchronous: nothing else runs between the statement and its commit
    const statement = this.statement(sql)
    return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as R[]
  }

  async commitNow(change: () => Promise<void>): Promise<void> {
    // a request that awaits mid-change holds its transaction open: its commit (or rollback) comes first
    while (this.db.inTransaction) await setImmediate()
    try {
      await change()
      this.commit()
    } catch (error) {
      this.discard()
      throw error
    }
  }

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

  forTenant(tenant: string): TenantStore {
    return new TenantStore(this, tenant)
  }

  async tenantsWithRows(): Promise<string[]> {
    return (await this.rows<{tenant: string}>(Q.tenantsWithRows)).map((row) => row.tenant)
  }

  async dropTenant(tenant: string): Promise<void> {
    this.write()
    this.cache.clear()
    for (const sql of [Q.dropTenantDocs, Q.dropTenantEvents, Q.dropTenantDeliveries, Q.dropTenantAttempts]) await this.change(sql, tenant)
  }

  close(): void {
    this.commit()
    this.db.close()
  }
}

/**
 * Opens (creating it when missing, mode 0600) and migrates the database; `undefined` is an
 * in-memory one. Throws StateFileInUseError when another process holds the file.
 */
export function openStore(file?: string): OpenedStore {
  if (file) closeSync(openSync(file, 'a', 0o600))
  // No busy wait: a file held by another sandbox is refused at once.
  const db = keepAlive(openSqlite(file ?? ':memory:'))
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
    return {store: new SqliteStore(db), created: found === 0}
  } catch (error) {
    db.close()
    if (sqliteCode(error) === 'SQLITE_BUSY') {
      throw new StateFileInUseError(`the state file ${file} is in use by another sandbox; stop it, or start with another --state file`)
    }

    throw error
  }
}
