/**
 * The sandbox state behind the core: the database (store.ts), each module's repositories over
 * it, the webhook deliveries still due, and the whole state as one document for export and import.
 */
import {randomUUID} from 'node:crypto'

import type {DeliveryAttempt as ListedAttempt} from '../../services/webhook-delivery.js'
import type {ModuleState, SandboxEvent, SandboxModule} from '../types.js'

import {importJsonStateFile} from './legacy-state-file.js'
import {openStore} from './sqlite-store.js'
import {DOCUMENT_VERSION, readStateDocument} from './state-document.js'
import {DocTable, type SandboxStore, type TenantStore} from './store.js'
import {DEFAULT_TENANT} from './tenant-ids.js'

/** A webhook delivery still due, as its table keeps it: the exact body every attempt sends, and the number of its next attempt. */
export interface DueDelivery {
  kind?: 'delivery'
  event: SandboxEvent
  url: string
  /** the bytes every attempt (and a resend) sends; rows of schema 3 have none: the event's payload then */
  body?: string
  /** the attempt this row is due for, 1 first (rows of schema 3: 1) */
  attempt?: number
  /** the tenant's time it falls due at (a retry's); none: when it was raised */
  dueAt?: string
}

/** A module's job due at a time of the tenant's clock (a checkout's expiry): its `due` runs it. */
export interface DueJob {
  kind: 'job'
  service: string
  work: unknown
  dueAt: string
}

export type DueWork = DueDelivery | DueJob

/** One attempt of a delivery as the log keeps it: as listed, and the bytes it sent (for a resend). */
export interface DeliveryAttempt extends ListedAttempt {
  event: SandboxEvent['type']
  body: string
}

/** The row id of a module's job scheduled under a key (a delivery's is a UUID: no clash). */
const jobId = (service: string, key: string) => `job:${service}:${key}`

/**
 * Work of a tenant that is due (the `deliveries` table): webhook deliveries, stored with the change
 * that raised them, and modules' jobs at a time of the tenant's clock. A row is claimed by the
 * process that runs it; a claim lasts until a time (real time, ms): the claimer renews it while it
 * delivers, and when it lapses (its process died) any process may claim the row again. A row is
 * due at `due_at` (real time: the tenant's due time less its clock's offset, shifted when the
 * clock moves), or at once.
 */
export class PendingDeliveries {
  private readonly store: SandboxStore
  private readonly tenant: string

  constructor(handle: TenantStore) {
    this.store = handle.store
    this.tenant = handle.tenant
  }

  /** A delivery of `event` to `url`, due now; its id is the delivery id every attempt carries. */
  async add(event: SandboxEvent, url: string): Promise<string> {
    const id = randomUUID()
    const due: DueDelivery = {attempt: 1, body: JSON.stringify(event.payload), event, url}
    await this.store.changeLater(this.store.queries.addDelivery, this.tenant, id, JSON.stringify(due), null)
    return id
  }

  /** A module's job, due at `at` on the tenant's clock (whose offset from the real time is `offsetMs`); its row's id is the module's key, when it gives one. */
  async schedule(service: string, work: unknown, at: Date, offsetMs: number, key?: string): Promise<void> {
    const job: DueJob = {dueAt: at.toISOString(), kind: 'job', service, work}
    const id = key === undefined ? randomUUID() : jobId(service, key)
    await this.store.changeLater(this.store.queries.addDelivery, this.tenant, id, JSON.stringify(job), at.getTime() - offsetMs)
  }

  /** The module's job of that key will not run: its row goes with the request's change. */
  async unschedule(service: string, key: string): Promise<void> {
    await this.store.changeLater(this.store.queries.deleteDelivery, this.tenant, jobId(service, key))
  }

  /** The tenant's clock moved by `ms` (in the request's transaction): its due work falls due that much sooner. */
  async shift(ms: number): Promise<void> {
    if (ms !== 0) await this.store.changeLater(this.store.queries.shiftDue, ms, this.tenant)
  }

  async clear(): Promise<void> {
    await this.store.changeLater(this.store.queries.dropTenantDeliveries, this.tenant)
    await this.store.changeLater(this.store.queries.dropTenantAttempts, this.tenant)
  }

  // claim, renew, reschedule, done and log are made by the process delivering, outside any request: each commits on its own

  /** Claims the row until `until` if it is due; undefined when it is gone, not due, or another process holds it. */
  async claim(id: string, until: number): Promise<DueWork | undefined> {
    const now = Date.now()
    const rows = await this.store.runAlone<{doc: string}>(this.store.queries.claimDelivery, until, this.tenant, id, now, now)
    return rows[0] ? (JSON.parse(rows[0].doc) as DueWork) : undefined
  }

  async renew(id: string, until: number): Promise<void> {
    await this.store.runAlone(this.store.queries.renewClaim, until, this.tenant, id)
  }

  /** A failed delivery's next attempt, due at `dueAtReal` (real time, ms), unclaimed. */
  async reschedule(id: string, due: DueDelivery, dueAtReal: number): Promise<void> {
    await this.store.runAlone(this.store.queries.rescheduleDelivery, JSON.stringify(due), dueAtReal, this.tenant, id)
  }

  async done(id: string): Promise<void> {
    await this.store.runAlone(this.store.queries.deleteDelivery, this.tenant, id)
  }

  /** Within a transaction (a due job's): the row goes with the change it made. */
  async doneWithin(id: string): Promise<void> {
    await this.store.changeLater(this.store.queries.deleteDelivery, this.tenant, id)
  }

  /** Records an attempt, on its own (a delivery) or in the request's transaction (`within`: a resend). */
  async log(attempt: DeliveryAttempt, within = false): Promise<void> {
    const Q = this.store.queries
    const run = (sql: string, ...params: unknown[]) => (within ? this.store.change(sql, ...params) : this.store.runAlone(sql, ...params))
    await run(Q.addAttempt, this.tenant, attempt.deliveryId, attempt.checkoutId, JSON.stringify(attempt))
    await run(Q.trimAttempts, this.tenant, this.tenant, 1, MAX_LOGGED_ATTEMPTS)
  }

  /** The attempts of the tenant's deliveries, oldest first: of one checkout, or of one delivery. */
  async attempts(filter: {checkoutId?: string; deliveryId?: string} = {}): Promise<DeliveryAttempt[]> {
    const Q = this.store.queries
    const rows = filter.deliveryId
      ? await this.store.rows<{doc: string}>(Q.deliveryAttempts, this.tenant, filter.deliveryId)
      : filter.checkoutId
        ? await this.store.rows<{doc: string}>(Q.checkoutAttempts, this.tenant, filter.checkoutId)
        : await this.store.rows<{doc: string}>(Q.listAttempts, this.tenant)
    return rows.map((row) => JSON.parse(row.doc) as DeliveryAttempt)
  }

  /** The tenant's clock offset as the database has it now (another replica may have moved it), outside any request. */
  async savedOffset(): Promise<number> {
    const rows = await this.store.runAlone<{doc: string}>(this.store.queries.getDoc, this.tenant, CLOCK_COLLECTION, CLOCK_KEY)
    const offset = rows[0] ? (JSON.parse(rows[0].doc) as {offsetMs?: unknown}).offsetMs : undefined
    return typeof offset === 'number' && Number.isFinite(offset) ? offset : 0
  }
}

/** Claims (committed on its own), until `until`, up to `limit` due rows of any tenant that no process holds (claims that lapsed before `lapsedBefore` are not held). */
export async function claimDueDeliveries(
  store: SandboxStore,
  options: {until: number; lapsedBefore: number; limit: number},
): Promise<{tenant: string; id: string; due: DueWork}[]> {
  const rows = await store.runAlone<{doc: string; id: string; tenant: string}>(store.queries.claimDue, options.until, options.lapsedBefore, Date.now(), options.limit)
  return rows.map((row) => ({due: JSON.parse(row.doc) as DueWork, id: row.id, tenant: row.tenant}))
}

/** The delivery log keeps a tenant's newest attempts, this many (each holds the body it sent). */
export const MAX_LOGGED_ATTEMPTS = 5000

export const CLOCK_COLLECTION = 'core.clock'
export const CLOCK_KEY = 'offset'

/**
 * The sandbox clock's offset from the real time (core/clock.ts), a row of the documents table:
 * written in the transaction of the request that moved the clock, read back at start.
 */
export class SavedClock {
  private readonly table: DocTable<{offsetMs: number}>

  constructor(store: TenantStore) {
    this.table = new DocTable(store, CLOCK_COLLECTION)
  }

  async get(): Promise<number | undefined> {
    const offset = (await this.table.get(CLOCK_KEY))?.offsetMs
    return typeof offset === 'number' && Number.isFinite(offset) ? offset : undefined
  }

  async set(offsetMs: number): Promise<void> {
    await this.table.set(CLOCK_KEY, {offsetMs})
  }
}

/** The database, and the default tenant's state in it. */
export interface OpenState {
  store: SandboxStore
  /** by service name */
  modules: Map<string, ModuleState>
  pending: PendingDeliveries
  clock: SavedClock
  /** a new database: no state was there before */
  created: boolean
}

export function moduleStates(modules: readonly SandboxModule[], store: TenantStore): Map<string, ModuleState> {
  return new Map(modules.map((m) => [m.service.name, m.openState(store)]))
}

/** The whole state as a document (what `sandbox export` writes). */
export async function dumpState(states: ReadonlyMap<string, ModuleState>): Promise<Record<string, unknown>> {
  const document: Record<string, unknown> = {version: DOCUMENT_VERSION}
  for (const [service, state] of states) document[service] = await state.dump()
  return document
}

/**
 * Replaces the whole state with a document's, all or nothing (within the request's transaction):
 * a module the document has no section for starts empty. Throws StateDocumentError.
 */
export async function loadState(store: SandboxStore, states: ReadonlyMap<string, ModuleState>, value: unknown): Promise<void> {
  const document = readStateDocument(value, [...states.keys()])
  await store.atomically(async () => {
    for (const [service, state] of states) await state.load(document.sections.get(service) ?? {}, document.version)
  })
}

/** The database a sandbox keeps its state in. */
export interface StateOptions {
  /** the SQLite file; in memory without one */
  file?: string
  /** a PostgreSQL URL (replaces `file`): the database several replicas share */
  database?: string
  notice(message: string): void
}

/**
 * Opens the database: PostgreSQL when `database` is given, else SQLite, the file of `file` (in
 * memory without one), importing it first if it is a JSON state file of the earlier format. A new
 * database gets each module's fresh state.
 */
export async function openState(modules: readonly SandboxModule[], options: StateOptions): Promise<OpenState> {
  const {created, store} = await openDatabase(modules, options)
  try {
    const own = store.forTenant(DEFAULT_TENANT)
    const states = moduleStates(modules, own)
    if (created) for (const state of states.values()) await state.reset()
    await store.commit()
    return {clock: new SavedClock(own), created, modules: states, pending: new PendingDeliveries(own), store}
  } catch (error) {
    await store.close()
    throw error
  }
}

async function openDatabase(modules: readonly SandboxModule[], options: StateOptions): Promise<{created: boolean; store: SandboxStore}> {
  if (options.database) {
    const {openPostgres} = await import('./postgres-database.js')
    const {PostgresStore} = await import('./postgres-store.js')
    const opened = await openPostgres(options.database)
    return {created: opened.created, store: new PostgresStore(opened.pool, opened.close)}
  }

  if (options.file) {
    await importJsonStateFile(options.file, options.notice, (store, document) => loadState(store, moduleStates(modules, store.forTenant(DEFAULT_TENANT)), document))
  }

  return openStore(options.file)
}
