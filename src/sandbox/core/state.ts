/**
 * The sandbox state behind the core: the database (store.ts), each module's repositories over
 * it, the webhook deliveries still due, and the whole state as one document for export and import.
 */
import {randomUUID} from 'node:crypto'

import type {ModuleState, SandboxEvent, SandboxModule} from '../types.js'

import {importJsonStateFile} from './legacy-state-file.js'
import {openStore} from './sqlite-store.js'
import {DOCUMENT_VERSION, readStateDocument} from './state-document.js'
import {DocTable, type SandboxStore, type TenantStore} from './store.js'
import {DEFAULT_TENANT} from './tenant-ids.js'

/** A webhook delivery still due, as its table keeps it. */
export interface DueDelivery {
  event: SandboxEvent
  url: string
}

/**
 * Deliveries of webhook events that are due (the `deliveries` table): stored with the change that
 * raised them, claimed by the process that sends them, removed once delivered (or given up). A
 * claim lasts until a time (real time, ms): the claimer renews it while it delivers, and when it
 * lapses (its process died) any process may claim the delivery again.
 */
export class PendingDeliveries {
  private readonly store: SandboxStore
  private readonly tenant: string

  constructor(handle: TenantStore) {
    this.store = handle.store
    this.tenant = handle.tenant
  }

  async add(event: SandboxEvent, url: string): Promise<string> {
    const id = randomUUID()
    await this.store.change(this.store.queries.addDelivery, this.tenant, id, JSON.stringify({event, url} satisfies DueDelivery))
    return id
  }

  async clear(): Promise<void> {
    await this.store.change(this.store.queries.dropTenantDeliveries, this.tenant)
  }

  // claim, renew and done are made by the process delivering, outside any request: each commits on its own

  /** Claims the delivery until `until`; undefined when it is gone or another process holds it. */
  async claim(id: string, until: number): Promise<DueDelivery | undefined> {
    const rows = await this.store.runAlone<{doc: string}>(this.store.queries.claimDelivery, until, this.tenant, id, Date.now())
    return rows[0] ? (JSON.parse(rows[0].doc) as DueDelivery) : undefined
  }

  async renew(id: string, until: number): Promise<void> {
    await this.store.runAlone(this.store.queries.renewClaim, until, this.tenant, id)
  }

  async done(id: string): Promise<void> {
    await this.store.runAlone(this.store.queries.deleteDelivery, this.tenant, id)
  }
}

/** Claims (committed on its own), until `until`, up to `limit` deliveries of any tenant that no process holds (claims that lapsed before `lapsedBefore` are not held). */
export async function claimDueDeliveries(
  store: SandboxStore,
  options: {until: number; lapsedBefore: number; limit: number},
): Promise<{tenant: string; id: string; due: DueDelivery}[]> {
  const rows = await store.runAlone<{doc: string; id: string; tenant: string}>(store.queries.claimDue, options.until, options.lapsedBefore, options.limit)
  return rows.map((row) => ({due: JSON.parse(row.doc) as DueDelivery, id: row.id, tenant: row.tenant}))
}

/**
 * The sandbox clock's offset from the real time (core/clock.ts), a row of the documents table:
 * written in the transaction of the request that moved the clock, read back at start.
 */
export class SavedClock {
  private readonly table: DocTable<{offsetMs: number}>

  constructor(store: TenantStore) {
    this.table = new DocTable(store, 'core.clock')
  }

  async get(): Promise<number | undefined> {
    const offset = (await this.table.get('offset'))?.offsetMs
    return typeof offset === 'number' && Number.isFinite(offset) ? offset : undefined
  }

  async set(offsetMs: number): Promise<void> {
    await this.table.set('offset', {offsetMs})
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
    return {created: opened.created, store: new PostgresStore(opened.db, opened.close)}
  }

  if (options.file) {
    await importJsonStateFile(options.file, options.notice, (store, document) => loadState(store, moduleStates(modules, store.forTenant(DEFAULT_TENANT)), document))
  }

  return openStore(options.file)
}
