import {CompiledQuery, type ControlledTransaction, type Kysely, sql} from 'kysely'
/**
 * The sandbox's storage in PostgreSQL (`sandbox start --database postgres://...`), shared by every
 * replica. Each request has a scope (found through AsyncLocalStorage): its own Kysely controlled
 * transaction, opened by its first write, or before anything when it is a write request
 * (`beginWrite`, which also waits for its tenant's other writes), and committed before its answer,
 * as on SQLite; and its own read cache, so that a request never reads another's uncommitted
 * document. Reads outside a transaction go to the pool (READ COMMITTED: what is committed).
 *
 * Work outside any request (the start, webhook deliveries finishing) runs in a scope of its own
 * (`apply`, `commitNow`) or, at start only, in the store's outside scope.
 */
import {AsyncLocalStorage} from 'node:async_hooks'

import {DocumentCache} from './document-cache.js'
import {type Queries, queriesFor} from './queries.js'
import {type SandboxStore, TenantStore} from './store.js'

/** Documents a request remembers: a request reads a handful (its session, user, checkout). */
const REQUEST_CACHE_LIMIT = 1000

class Scope {
  trx?: ControlledTransaction<any>
  opening?: Promise<ControlledTransaction<any>>
  readonly cache = new DocumentCache(REQUEST_CACHE_LIMIT)
  committed: (() => void)[] = []
  /** its client went away: what it wrote is rolled back, and it may write no more */
  abandoned = false
}

export class PostgresStore implements SandboxStore {
  readonly engine = 'postgres' as const
  readonly shared = true
  readonly queries: Queries = queriesFor('postgres')
  private readonly scopes = new AsyncLocalStorage<Scope>()
  private readonly byKey = new WeakMap<object, Scope>()
  /** what runs outside any request: the start */
  private readonly outside = new Scope()
  private readonly discardListeners: (() => Promise<void> | void)[] = []

  constructor(
    private readonly db: Kysely<any>,
    private readonly closeDb: () => Promise<void>,
  ) {}

  private get scope(): Scope {
    return this.scopes.getStore() ?? this.outside
  }

  get cache(): DocumentCache {
    return this.scope.cache
  }

  async first<R = unknown>(text: string, ...params: unknown[]): Promise<R | undefined> {
    return (await this.rows<R>(text, ...params))[0]
  }

  async rows<R = unknown>(text: string, ...params: unknown[]): Promise<R[]> {
    const scope = this.scope
    const executor = scope.trx ?? (scope.opening ? await scope.opening : this.db)
    return (await executor.executeQuery<R>(CompiledQuery.raw(text, params))).rows
  }

  /** All at once: an export is bounded by the import limit. */
  async *iterate<R = unknown>(text: string, ...params: unknown[]): AsyncIterable<R> {
    yield* await this.rows<R>(text, ...params)
  }

  async change(text: string, ...params: unknown[]): Promise<number> {
    const trx = await this.transaction()
    return Number((await trx.executeQuery(CompiledQuery.raw(text, params))).numAffectedRows ?? 0)
  }

  within<T>(key: object, work: () => T): T {
    let scope = this.byKey.get(key)
    if (!scope) this.byKey.set(key, (scope = new Scope()))
    return this.scopes.run(scope, work)
  }

  /**
   * A transaction-scoped advisory lock on the tenant: a tenant's write requests run one at a time
   * across every replica, as SQLite's one connection runs them (docs/architecture.md says why a
   * tenant lock rather than row locks). Other tenants' writes, and every read, go on in parallel.
   */
  async beginWrite(tenant: string): Promise<void> {
    const trx = await this.transaction()
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`opsctl-tenant:${tenant}`}, 0))`.execute(trx)
  }

  writing(): boolean {
    return this.scope.trx !== undefined || this.scope.opening !== undefined
  }

  async commit(): Promise<void> {
    const scope = this.scope
    const trx = await this.opened(scope)
    if (trx) {
      try {
        await trx.commit().execute()
      } catch (error) {
        await this.discardIn(scope, trx)
        throw error
      }
    }

    const committed = scope.committed
    scope.committed = []
    for (const work of committed) work()
  }

  async discard(): Promise<void> {
    const scope = this.scope
    await this.discardIn(scope, await this.opened(scope))
  }

  /**
   * The request's client went away before its answer: its transaction is rolled back now (its
   * tenant's lock with it), rather than when its handler ends, and a later write of it fails.
   */
  async abandon(): Promise<void> {
    const scope = this.scope
    scope.abandoned = true
    await this.discardIn(scope, await this.opened(scope))
  }

  afterCommit(work: () => void): void {
    this.scope.committed.push(work)
  }

  onDiscard(listener: () => Promise<void> | void): void {
    this.discardListeners.push(listener)
  }

  async runAlone<R = unknown>(text: string, ...params: unknown[]): Promise<R[]> {
    return (await this.db.executeQuery<R>(CompiledQuery.raw(text, params))).rows
  }

  async commitNow(change: () => Promise<void>): Promise<void> {
    await this.scopes.run(new Scope(), async () => {
      try {
        await change()
        await this.commit()
      } catch (error) {
        await this.discard()
        throw error
      }
    })
  }

  async atomically<T>(change: () => Promise<T>): Promise<T> {
    const trx = await this.transaction()
    await trx.executeQuery(CompiledQuery.raw('SAVEPOINT atomically'))
    try {
      const result = await change()
      await trx.executeQuery(CompiledQuery.raw('RELEASE SAVEPOINT atomically'))
      return result
    } catch (error) {
      this.scope.cache.clear()
      await trx.executeQuery(CompiledQuery.raw('ROLLBACK TO SAVEPOINT atomically')).catch(() => undefined)
      throw error
    }
  }

  forTenant(tenant: string): TenantStore {
    return new TenantStore(this, tenant)
  }

  async tenantsWithRows(): Promise<string[]> {
    return (await this.rows<{tenant: string}>(this.queries.tenantsWithRows)).map((row) => row.tenant)
  }

  async dropTenant(tenant: string): Promise<void> {
    this.scope.cache.clear()
    for (const text of [this.queries.dropTenantDocs, this.queries.dropTenantEvents, this.queries.dropTenantDeliveries, this.queries.dropTenantAttempts]) await this.change(text, tenant)
  }

  async close(): Promise<void> {
    try {
      await this.scopes.run(this.outside, () => this.commit())
    } finally {
      await this.closeDb()
    }
  }

  /** The scope's transaction, opened by its first write (or by beginWrite). */
  private async transaction(): Promise<ControlledTransaction<any>> {
    const scope = this.scope
    if (scope.trx) return scope.trx
    if (scope.abandoned) throw new Error('the request was abandoned by its client; it writes nothing more')
    scope.opening ??= this.db.startTransaction().execute()
    try {
      scope.trx = await scope.opening
    } finally {
      scope.opening = undefined
    }

    return scope.trx
  }

  /** The scope's transaction if it has one (waiting for one being opened); the scope has none after. */
  private async opened(scope: Scope): Promise<ControlledTransaction<any> | undefined> {
    const trx = scope.trx ?? (scope.opening ? await scope.opening.catch(() => undefined) : undefined)
    scope.trx = undefined
    return trx
  }

  private async discardIn(scope: Scope, trx: ControlledTransaction<any> | undefined): Promise<void> {
    scope.cache.clear()
    scope.committed = []
    if (!trx) return
    // the connection is released even when the rollback fails (a dead connection)
    await trx
      .rollback()
      .execute()
      .catch(() => undefined)
    for (const listener of this.discardListeners) {
      await Promise.resolve(listener()).catch((error: unknown) => process.stderr.write(`sandbox: ${(error as Error).message}\n`))
    }
  }
}
