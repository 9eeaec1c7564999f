/**
 * Users' events in the events table: the whole event as a document, beside the columns that the
 * filters and the paging order (date desc, id desc) read, all indexed per tenant and user. A page is
 * one index range scan, whatever the number of events stored. Every query is the handle's tenant's.
 */
import type {Event, EventsQuery} from '../../services/health/operations.js'
import type {Queries} from '../core/queries.js'
import type {SandboxStore, TenantStore} from '../core/store.js'

import {EVENTS_PAGE_SIZE} from '../../services/health/operations.js'
import {decodeToken, encodeToken, filteredEvents} from './events.js'

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
    // Row by row, so the rows' text and the parsed events are never both held whole (on SQLite).
    for await (const row of this.store.iterate<{doc: string; user_id: string}>(this.Q.eventsByUser, this.tenant)) {
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

  /**
   * One page of the filtered events, newest first, with tokens for the pages around it when they
   * exist. The page is read with one event more, which says whether there is a page beyond it; the
   * page the other way is looked for only when a token led here (a first page has none before it).
   */
  async page(userId: string, q: EventsQuery, pageSize = EVENTS_PAGE_SIZE): Promise<{events: Event[]; paging: {next?: string; previous?: string}}> {
    const matching = filteredEvents(this.store.engine, this.tenant, userId, q)
    const cursor = q.pagingToken ? decodeToken(q.pagingToken) : undefined
    const beyond = (comparison: '<' | '>', at: {date: string; id: string}) =>
      matching.where((eb) => eb(eb.refTuple('date', 'id'), comparison, eb.tuple(at.date, at.id)))
    const backwards = cursor?.dir === 'p'
    const from = cursor ? beyond(backwards ? '>' : '<', cursor) : matching
    const order = backwards ? 'asc' : 'desc'
    const read = await this.docs(from.select('doc').orderBy('date', order).orderBy('id', order).limit(pageSize + 1).compile())
    const further = read.length > pageSize
    const events = backwards ? read.slice(0, pageSize).reverse() : read.slice(0, pageSize)
    const paging: {next?: string; previous?: string} = {}
    if (events.length === 0) return {events, paging}
    const first = events[0]
    const last = events.at(-1)!
    const exists = async (comparison: '<' | '>', e: Event) => {
      const query = beyond(comparison, e).select((eb) => eb.lit(1).as('one')).limit(1).compile()
      return (await this.store.first(query.sql, ...query.parameters)) !== undefined
    }

    if (backwards ? await exists('<', last) : further) paging.next = encodeToken({dir: 'n', date: last.date, id: last.id})
    if (backwards ? further : cursor !== undefined && (await exists('>', first))) paging.previous = encodeToken({dir: 'p', date: first.date, id: first.id})
    return {events, paging}
  }

  /** Adds the event, or replaces the user's event with its id. */
  async put(userId: string, event: Event): Promise<void> {
    await this.store.changeLater(
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

  private async docs(query: string | {sql: string; parameters: readonly unknown[]}, ...params: unknown[]): Promise<Event[]> {
    const [text, values] = typeof query === 'string' ? [query, params] : [query.sql, query.parameters]
    return (await this.store.rows<{doc: string}>(text, ...values)).map((r) => JSON.parse(r.doc) as Event)
  }
}
