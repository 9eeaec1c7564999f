/**
 * A tenant's recent events (GET /__sandbox/events), the newest EVENT_LOG_LIMIT, kept in the
 * database with the change that raised them: every replica of a sandbox on PostgreSQL lists the
 * same, so a load balancer needs no stickiness for it, and an event of a change rolled back is not
 * listed. Its statements wait for the request's next one (`changeLater`): no round trip more.
 */
import {randomUUID} from 'node:crypto'

import type {SandboxEvent} from '../types.js'

import {DocTable, type TenantStore} from './store.js'

export const EVENT_LOG_LIMIT = 1000

/**
 * The older events are dropped once in this many a process adds (the trim sorts the tenant's log,
 * a cost each event paid before): the log holds a little more than it lists, never unbounded.
 */
const TRIM_EVERY = 100

export type LoggedEvent = SandboxEvent & {at: string}

export class EventLog {
  private readonly table: DocTable<LoggedEvent>
  private added = 0

  constructor(private readonly handle: TenantStore) {
    this.table = new DocTable(handle, 'core.events')
  }

  async add(event: LoggedEvent): Promise<void> {
    await this.table.set(randomUUID(), event)
    if (++this.added % TRIM_EVERY !== 0) return
    const {store, tenant} = this.handle
    await store.changeLater(store.queries.trimDocs, tenant, this.table.collection, tenant, this.table.collection, 1, EVENT_LOG_LIMIT)
  }

  /** The newest EVENT_LOG_LIMIT, oldest first. */
  async list(): Promise<LoggedEvent[]> {
    return (await this.table.values()).slice(-EVENT_LOG_LIMIT)
  }
}
