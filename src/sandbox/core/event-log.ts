/**
 * A tenant's recent events (GET /__sandbox/events), the newest EVENT_LOG_LIMIT, kept in the
 * database with the change that raised them: every replica of a sandbox on PostgreSQL lists the
 * same, so a load balancer needs no stickiness for it, and an event of a change rolled back is not
 * listed. Its two statements wait for the request's next one (`changeLater`): no round trip more.
 */
import {randomUUID} from 'node:crypto'

import type {SandboxEvent} from '../types.js'

import {DocTable, type TenantStore} from './store.js'

export const EVENT_LOG_LIMIT = 1000

export type LoggedEvent = SandboxEvent & {at: string}

export class EventLog {
  private readonly table: DocTable<LoggedEvent>

  constructor(private readonly handle: TenantStore) {
    this.table = new DocTable(handle, 'core.events')
  }

  async add(event: LoggedEvent): Promise<void> {
    await this.table.set(randomUUID(), event)
    const {store, tenant} = this.handle
    await store.changeLater(store.queries.trimDocs, tenant, this.table.collection, tenant, this.table.collection, 1, EVENT_LOG_LIMIT)
  }

  /** Oldest first. */
  async list(): Promise<LoggedEvent[]> {
    return this.table.values()
  }
}
