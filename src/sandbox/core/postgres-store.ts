/**
 * The sandbox's storage in PostgreSQL (`sandbox start --database postgres://...`), shared by every
 * replica. Each request has a scope (found through AsyncLocalStorage): its own transaction on a
 * connection of the pool, opened by its first write, or before anything when it is a write request
 * (`beginWrite`, which also waits for its tenant's other writes), and committed before its answer,
 * as on SQLite; and its own read cache, so that a request never reads another's uncommitted
 * document. Reads outside a transaction go to the pool (READ COMMITTED: what is committed).
 *
 * Round trips are what a replica costs PostgreSQL (docs/architecture.md), so a transaction sends as
 * few as it can: BEGIN and the tenant's lock wait to go with the statement after them, and writes
 * whose result nobody reads (`changeLater`) wait for the next statement, at the latest the COMMIT. Such a
 * batch goes as one multi-statement text, each statement an `EXECUTE` of one prepared on the
 * connection with its values as escaped literals (`batchOf`); PostgreSQL runs it in order and
 * stops at the first error, which then fails the request as before.
 *
 * Work outside any request (the start, webhook deliveries finishing) runs in a scope of its own
 * (`apply`, `commitNow`) or, at start only, in the store's outside scope.
 */
import {AsyncLocalStorage} from 'node:async_hooks'
import {createHash} from 'node:crypto'
import pg from 'pg'

import {DocumentCache} from './document-cache.js'
import {type Queries, queriesFor} from './queries.js'
import {ABSENT, cacheName, type DocRef, type SandboxStore, TenantStore} from './store.js'

/** Documents a request remembers: a request reads a handful (its session, user, checkout). */
const REQUEST_CACHE_LIMIT = 1000

/** A statement waiting to go in the next batch, its values apart. */
interface Waiting {
  params: readonly unknown[]
  text: string
}

class Scope {
  client?: pg.PoolClient
  opening?: Promise<pg.PoolClient>
  /** statements of the transaction not sent yet (BEGIN, a lock, writes): they go with the next one */
  waiting: Waiting[] = []
  /** its BEGIN was sent: there is a transaction to commit or roll back */
  begun = false
  /** tenants whose lock the transaction holds (or will, with its next statement) */
  readonly locked = new Set<string>()
  readonly cache = new DocumentCache(REQUEST_CACHE_LIMIT)
  committed: (() => void)[] = []
  /** its client went away: what it wrote is rolled back, and it may write no more */
  abandoned = false
}

/** A value as a literal of SQL text (strings escaped by pg, as its own client would quote them). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  return pg.escapeLiteral(String(value))
}

/** The statement with its parameters ($1, $2...: the queries of queries.ts have no other `$`) written in as literals. */
function inline(text: string, params: readonly unknown[]): string {
  return params.length === 0 ? text : text.replaceAll(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]))
}

/**
 * Statements of a batch prepared on each connection (SQL `PREPARE`, within a batch): a batch's
 * statement goes as `EXECUTE name(literals)`, which PostgreSQL parses in a few microseconds and
 * runs on the plan it keeps, rather than parsing and planning its text each time. `undefined`:
 * a batch that prepared something failed, so which are prepared is not known; the connection is
 * closed when released rather than reused.
 */
const preparedIn = new WeakMap<pg.PoolClient, Set<string> | undefined>()

/** The statements of a batch for one connection, each with its parameters: what was never prepared there is, first. */
function batchOf(client: pg.PoolClient, statements: readonly Waiting[]): {prepares: string[]; text: string} {
  let known = preparedIn.get(client)
  if (!known && !preparedIn.has(client)) preparedIn.set(client, (known = new Set()))
  const prepares: string[] = []
  const texts = statements.map(({params, text}) => {
    const hash = params.length > 0 ? hashOf(text) : undefined
    if (hash === undefined || !known) return inline(text, params)
    const name = `opsctl_batch_${hash}`
    if (!known.has(name)) {
      known.add(name)
      prepares.push(`PREPARE ${name} AS ${text}`)
    }

    return `EXECUTE ${name}(${params.map((value) => literal(value)).join(', ')})`
  })
  return {prepares, text: [...prepares, ...texts].join(';\n')}
}

/** Statements that wait to go with the next one, at most: past this many, they go now. */
const MAX_WAITING = 500

/**
 * A statement that goes alone, as a prepared statement of its connection, named from its text:
 * PostgreSQL parses and plans it once a connection rather than each time (about half of what a
 * lone read costs it). The texts are the code's (values go as parameters), so the names are few.
 */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  const hash = values.length === 0 ? undefined : hashOf(text)
  return {name: hash && `opsctl_${hash}`, text, values}
}

/** What names a text prepared on a connection (by pg for a lone statement, by `PREPARE` in a batch: two names, one namespace); undefined past MAX_PREPARED. */
function hashOf(text: string): string | undefined {
  let hash = statementHashes.get(text)
  if (hash === undefined && statementHashes.size < MAX_PREPARED) statementHashes.set(text, (hash = createHash('sha256').update(text).digest('hex').slice(0, 40)))
  return hash
}

/** Texts prepared, at most: past this many (never reached by the sandbox's own), a text goes unnamed. */
const MAX_PREPARED = 1000
const statementHashes = new Map<string, string>()

const LOCK = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))'
const lockOf = (tenant: string): Waiting => ({params: [`opsctl-tenant:${tenant}`], text: LOCK})
const BEGIN: Waiting = {params: [], text: 'BEGIN'}
const alone = (text: string): Waiting => ({params: [], text})

/** The result of the last statement of a text (pg answers a multi-statement text with one result per statement). */
const lastOf = (result: pg.QueryResult | pg.QueryResult[]) => (Array.isArray(result) ? result.at(-1)! : result)

export class PostgresStore implements SandboxStore {
  readonly engine = 'postgres' as const
  readonly shared = true
  readonly queries: Queries = queriesFor('postgres')
  private readonly scopes = new AsyncLocalStorage<Scope>()
  /** what runs outside any request: the start */
  private readonly outside = new Scope()
  private readonly discardListeners: (() => Promise<void> | void)[] = []

  constructor(
    private readonly pool: pg.Pool,
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
    return (await this.send(this.scope, text, params)).rows as R[]
  }

  /**
   * All at once: an export is bounded by the import limit.
   * @yields each row of the query
   */
  async *iterate<R = unknown>(text: string, ...params: unknown[]): AsyncIterable<R> {
    yield* await this.rows<R>(text, ...params)
  }

  async change(text: string, ...params: unknown[]): Promise<number> {
    const scope = this.scope
    await this.transaction(scope)
    return (await this.send(scope, text, params)).rowCount ?? 0
  }

  async changeLater(text: string, ...params: unknown[]): Promise<void> {
    const scope = this.scope
    const client = await this.transaction(scope)
    scope.waiting.push({params, text})
    // a bulk write (an import, generated events) goes in texts of a bounded size
    if (scope.waiting.length >= MAX_WAITING) await this.sendAll(scope, client, scope.waiting.pop()!)
  }

  async prefetch(docs: readonly DocRef[]): Promise<void> {
    const scope = this.scope
    const params: unknown[] = []
    const $ = (value: unknown) => `$${params.push(value)}`
    const one = docs.filter((doc) => typeof doc.key === 'string').map(({collection, key, tenant}) => `(${$(tenant)}, ${$(collection)}, ${$(key)})`)
    const whole = docs.filter((doc) => doc.key === null).map(({collection, tenant}) => `(${$(tenant)}, ${$(collection)})`)
    // a document another names: its key is read from that document (stored by JSON.stringify) in the same statement
    const named = docs.flatMap(({collection, key: from, tenant}) =>
      from !== null && typeof from === 'object'
        ? [`(tenant = ${$(tenant)} AND collection = ${$(collection)} AND key = (SELECT doc::json->>${$(from.field)} FROM documents WHERE tenant = ${$(tenant)} AND collection = ${$(from.collection)} AND key = ${$(from.key)}))`]
        : [],
    )
    const where = [one.length > 0 && `(tenant, collection, key) IN (${one.join(', ')})`, whole.length > 0 && `(tenant, collection) IN (${whole.join(', ')})`, ...named].filter(Boolean).join(' OR ')
    const rows = (await this.send(scope, `SELECT tenant, collection, key, doc FROM documents WHERE ${where} ORDER BY seq`, params)).rows as {collection: string; doc: string; key: string; tenant: string}[]
    for (const {collection, key, tenant} of docs) {
      const name = cacheName(tenant, collection)
      if (key === null) scope.cache.rememberList(name, rows.filter((row) => row.tenant === tenant && row.collection === collection).map((row) => [row.key, row.doc]))
      else if (typeof key === 'string') scope.cache.remember(name, key, ABSENT)
    }

    for (const row of rows) scope.cache.remember(cacheName(row.tenant, row.collection), row.key, row.doc)
  }

  newScope(): Scope {
    return new Scope()
  }

  within<T>(scope: Scope, work: () => T): T {
    return this.scopes.run(scope, work)
  }

  /**
   * A transaction-scoped advisory lock on the tenant: a tenant's write requests run one at a time
   * across every replica, as SQLite's one connection runs them (docs/architecture.md says why a
   * tenant lock rather than row locks). Other tenants' writes, and every read, go on in parallel.
   * It is taken with the transaction's next statement, which is the first to read after it.
   */
  async beginWrite(tenant: string): Promise<void> {
    const scope = this.scope
    await this.transaction(scope)
    if (scope.locked.has(tenant)) return
    scope.locked.add(tenant)
    scope.waiting.push(lockOf(tenant))
  }

  holdsLock(tenant: string): boolean {
    return this.scope.locked.has(tenant)
  }

  writing(): boolean {
    return this.scope.client !== undefined || this.scope.opening !== undefined
  }

  async commit(): Promise<void> {
    const scope = this.scope
    const client = await this.opened(scope)
    // a transaction that sent nothing (its BEGIN and lock still wait) has nothing to commit
    if (client && !scope.begun && scope.waiting.every(({text}) => text === BEGIN.text || text === LOCK)) this.release(scope, client)
    else if (client) {
      try {
        await this.sendAll(scope, client, alone('COMMIT'))
      } catch (error) {
        await this.discardIn(scope, client)
        throw error
      }

      this.release(scope, client)
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
    return (await this.pool.query(prepared(text, params))).rows as R[]
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
    const scope = this.scope
    await this.transaction(scope)
    scope.waiting.push(alone('SAVEPOINT atomically'))
    try {
      const result = await change()
      scope.waiting.push(alone('RELEASE SAVEPOINT atomically'))
      return result
    } catch (error) {
      scope.cache.clear()
      await this.send(scope, 'ROLLBACK TO SAVEPOINT atomically', []).catch(() => undefined)
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
    for (const text of [this.queries.dropTenantDocs, this.queries.dropTenantEvents, this.queries.dropTenantDeliveries, this.queries.dropTenantAttempts]) await this.changeLater(text, tenant)
  }

  async close(): Promise<void> {
    try {
      await this.scopes.run(this.outside, () => this.commit())
    } finally {
      await this.closeDb()
    }
  }

  /** One statement: in the scope's transaction, with what waits to go before it, else on its own (what is committed). */
  private async send(scope: Scope, text: string, params: unknown[]): Promise<pg.QueryResult> {
    const client = scope.client ?? (scope.opening ? await scope.opening : undefined)
    if (!client) return this.pool.query(prepared(text, params))
    if (scope.waiting.length === 0) return client.query(prepared(text, params))
    return this.sendAll(scope, client, {params, text})
  }

  /** What waits to go, and `last`, as one text: the result of `last`. */
  private async sendAll(scope: Scope, client: pg.PoolClient, last: Waiting): Promise<pg.QueryResult> {
    const {prepares, text} = batchOf(client, [...scope.waiting, last])
    scope.begun ||= scope.waiting.includes(BEGIN)
    scope.waiting = []
    try {
      return lastOf((await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[])
    } catch (error) {
      if (prepares.length > 0) preparedIn.set(client, undefined)
      throw error
    }
  }

  /** The scope's transaction, opened by its first write (or by beginWrite): a connection, and a BEGIN that goes with its next statement. */
  private async transaction(scope: Scope): Promise<pg.PoolClient> {
    if (scope.client) return scope.client
    if (scope.abandoned) throw new Error('the request was abandoned by its client; it writes nothing more')
    if (!scope.opening) {
      scope.opening = this.pool.connect()
      scope.waiting.push(BEGIN)
    }

    try {
      scope.client = await scope.opening
    } catch (error) {
      scope.waiting = []
      throw error
    } finally {
      scope.opening = undefined
    }

    return scope.client
  }

  /** The scope's connection if it has a transaction (waiting for one being opened); the scope has none after. */
  private async opened(scope: Scope): Promise<pg.PoolClient | undefined> {
    const client = scope.client ?? (scope.opening ? await scope.opening.catch(() => undefined) : undefined)
    scope.client = undefined
    return client
  }

  private release(scope: Scope, client: pg.PoolClient, error?: unknown): void {
    scope.waiting = []
    scope.begun = false
    scope.locked.clear()
    // a connection whose rollback failed is closed, not given to the next request, as is one whose prepared statements are not known
    const unknown = preparedIn.has(client) && preparedIn.get(client) === undefined
    if (unknown) preparedIn.delete(client)
    client.release(error instanceof Error ? error : unknown ? new Error('its prepared statements are not known') : undefined)
  }

  private async discardIn(scope: Scope, client: pg.PoolClient | undefined): Promise<void> {
    scope.cache.clear()
    scope.committed = []
    if (!client) return
    let failed: unknown
    if (scope.begun) await client.query('ROLLBACK').catch((error: unknown) => (failed = error))
    this.release(scope, client, failed)
    for (const listener of this.discardListeners) {
      await Promise.resolve(listener()).catch((error: unknown) => process.stderr.write(`sandbox: ${(error as Error).message}\n`))
    }
  }
}
