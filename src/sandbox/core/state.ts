/**
 * The sandbox state behind the core: the database (store.ts), each module's repositories over
 * it, the webhook deliveries still due, and the whole state as one document for export and import.
 */
import {randomUUID} from 'node:crypto'

import type {ModuleState, SandboxEvent, SandboxModule} from '../types.js'

import {importJsonStateFile} from './legacy-state-file.js'
import {DOCUMENT_VERSION, readStateDocument} from './state-document.js'
import {DocTable, openStore, type SandboxStore, type TenantStore} from './store.js'
import {DEFAULT_TENANT} from './tenant-ids.js'

/** Deliveries of webhook events that are due: stored with the change that raised them, removed once delivered (or given up). */
export class PendingDeliveries {
  private readonly table: DocTable<{event: SandboxEvent; url: string}>

  constructor(store: TenantStore) {
    this.table = new DocTable(store, 'core.deliveries')
  }

  async add(event: SandboxEvent, url: string): Promise<string> {
    const id = randomUUID()
    await this.table.set(id, {event, url})
    return id
  }

  async clear(): Promise<void> {
    await this.table.clear()
  }

  async done(id: string): Promise<void> {
    await this.table.delete(id)
  }

  async get(id: string): Promise<undefined | {event: SandboxEvent; url: string}> {
    return this.table.get(id)
  }

  async ids(): Promise<string[]> {
    return this.table.keys()
  }
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

/**
 * Opens the database of `file` (in memory without one), importing it first if it is a JSON state
 * file of the earlier format. A new database gets each module's fresh state.
 */
export async function openState(modules: readonly SandboxModule[], options: {file?: string; notice(message: string): void}): Promise<OpenState> {
  if (options.file) {
    await importJsonStateFile(options.file, options.notice, (store, document) => loadState(store, moduleStates(modules, store.forTenant(DEFAULT_TENANT)), document))
  }

  const {created, store} = openStore(options.file)
  try {
    const own = store.forTenant(DEFAULT_TENANT)
    const states = moduleStates(modules, own)
    if (created) for (const state of states.values()) await state.reset()
    store.commit()
    return {clock: new SavedClock(own), created, modules: states, pending: new PendingDeliveries(own), store}
  } catch (error) {
    store.close()
    throw error
  }
}
