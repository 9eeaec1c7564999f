/**
 * Users' events in the events table: the whole event as a document, beside the columns that the
 * filters and the paging order (date desc, id desc) read, all indexed per tenant and user. A page is
 * one index range scan, whatever the number of events stored. Every query is the handle's tenant's.
 */
import type {Event, EventsQuery} from '../../services/health/operations.js'
import type {Queries} from '../core/queries.js'
import type {SandboxStore, TenantStore} from '../core/store.js'

import {EVENTS_PAGE_SIZE} from '../../services/health/operations.js'
import {keepAlive} from '../core/native-lifetime.js'
import {decodeToken, encodeToken, eventFilter} from './events.js'

const optionalBit = (value: unknown) => (typeof value === 'boolean' ? Number(value) : null)
const text = (value: unknown) => (typeof value === 'string' ? value : null)

export class EventStore {
  private readonly store: SandboxStore
  private readonly tenant: string
  private readonly Q: Queries

  constructor(handle: TenantStore) {
    this.store = handle.store
    this.tenant = handle.tenant
    this.Q = handle.store.queries
  }

  /** Events of the user dated in [start, end] (ISO), any order. */
  async between(userId: string, start: string, end: string): Promise<Event[]> {
    return this.docs(this.Q.eventsBetween, this.tenant, userId, start, end)
  }

  /** Every user's events, newest first, by user id. */
  async byUser(): Promise<Map<string, Event[]>> {
    const all = new Map<string, Event[]>()
    // Row by row, so the rows' text and the parsed events are never both held whole; the iterator is kept (native-lifetime.ts).
    const rows = keepAlive(this.store.statement(this.Q.eventsByUser).iterate(this.tenant)) as Iterable<{
      doc: string
      user_id: string
    }>
    for (const row of rows) {
      let list = all.get(row.user_id)
      if (!list) all.set(row.user_id, (list = []))
      list.push(JSON.parse(row.doc) as Event)
    }

    return all
  }

  async clear(): Promise<void> {
    await this.store.change(this.Q.dropTenantEvents, this.tenant)
  }

  async count(userId: string): Promise<number> {
    return Number((await this.store.first<{n: number}>(this.Q.countEvents, this.tenant, userId))?.n ?? 0)
  }

  async delete(userId: string, id: string): Promise<boolean> {
    return (await this.store.change(this.Q.deleteEvent, this.tenant, userId, id)) > 0
  }

  async get(userId: string, id: string): Promise<Event | undefined> {
    return (await this.docs(this.Q.getEvent, this.tenant, userId, id))[0]
  }

  /** One page of the filtered events, newest first, with tokens for the pages around it when they exist. */
  async page(userId: string, q: EventsQuery, pageSize = EVENTS_PAGE_SIZE): Promise<{events: Event[]; paging: {next?: string; previous?: string}}> {
    const filter = eventFilter(userId, q)
    const where = `tenant = ? AND ${filter.where}`
    const params = [this.tenant, ...filter.params]
    const cursor = q.pagingToken ? decodeToken(q.pagingToken) : undefined
    let events: Event[]
    if (cursor?.dir === 'p') {
      const sql = `SELECT doc FROM events WHERE ${where} AND (date, id) > (?, ?) ORDER BY date ASC, id ASC LIMIT ?`
      events = (await this.docs(sql, ...params, cursor.date, cursor.id, pageSize)).reverse()
    } else {
      const after = cursor ? ' AND (date, id) < (?, ?)' : ''
      const at = cursor ? [cursor.date, cursor.id] : []
      events = await this.docs(`SELECT doc FROM events WHERE ${where}${after} ORDER BY date DESC, id DESC LIMIT ?`, ...params, ...at, pageSize)
    }

    const paging: {next?: string; previous?: string} = {}
    if (events.length > 0) {
      const first = events[0]
      const last = events.at(-1)!
      const exists = async (comparison: string, e: Event) =>
        (await this.store.first(`SELECT 1 FROM events WHERE ${where} AND (date, id) ${comparison} (?, ?) LIMIT 1`, ...params, e.date, e.id)) !== undefined
      if (await exists('<', last)) paging.next = encodeToken({dir: 'n', date: last.date, id: last.id})
      if (await exists('>', first)) paging.previous = encodeToken({dir: 'p', date: first.date, id: first.id})
    }

    return {events, paging}
  }

  /** Adds the event, or replaces the user's event with its id. */
  async put(userId: string, event: Event): Promise<void> {
    await this.store.change(
      this.Q.putEvent,
      this.tenant,
      userId,
      event.id,
      event.date,
      text(event.medicationType),
      text(event.medicationId),
      text(event.source),
      optionalBit(event.nightEvent),
      Number(Boolean(event.preemptive)),
      Number(Boolean(event.addressConfirmed)),
      JSON.stringify(event),
    )
  }

  private async docs(sql: string, ...params: unknown[]): Promise<Event[]> {
    return (await this.store.rows<{doc: string}>(sql, ...params)).map((r) => JSON.parse(r.doc) as Event)
  }
}
