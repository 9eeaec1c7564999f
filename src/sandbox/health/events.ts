/**
 * The filters of getEvents as SQL over the events table (see core/schema.ts), and its opaque
 * cursor paging tokens (base64url of the direction and the cursor event's date and id). Events
 * are listed newest first (date desc, then id desc); a token is used with the same filters as the
 * request that produced it.
 */
import {sql} from 'kysely'
import * as z from 'zod'

import {type EventsQuery, healthOps} from '../../services/health/operations.js'
import {pageCursor} from '../core/page-cursor.js'
import {compilerFor, type Engine} from '../core/schema.js'

export interface Cursor {
  date: string
  id: string
  /** n: the page after this event; p: the page before it */
  dir: 'n' | 'p'
}

const tokens = pageCursor(healthOps.getEvents, z.tuple([z.enum(['n', 'p']), z.string(), z.string()]))

export function encodeToken(c: Cursor): string {
  return tokens.encode([c.dir, c.date, c.id])
}

export function decodeToken(token: string): Cursor {
  const [dir, date, id] = tokens.decode(token)
  return {dir, date, id}
}

const bit = (value: boolean) => (value ? 1 : 0)

/** Any of `wanted` in the event's list `list` (a JSON array of strings in `doc`), in the engine's JSON functions. */
function anyInList(engine: Engine, list: 'symptoms' | 'triggers', wanted: readonly string[]) {
  const values = sql.join(wanted.map((value) => sql`${value}`))
  return engine === 'sqlite'
    ? sql<boolean>`EXISTS (SELECT 1 FROM json_each(doc, ${`$.${list}`}) WHERE value IN (${values}))`
    : sql<boolean>`EXISTS (SELECT 1 FROM json_array_elements_text(CASE WHEN json_typeof(doc::json -> ${list}) = 'array' THEN doc::json -> ${list} ELSE '[]'::json END) AS item(value) WHERE value IN (${values}))`
}

/**
 * A tenant's user's events that match the query's filters, as a query to build on (the page adds
 * its cursor, order and limit). Symptoms and triggers match when any one listed is on the event.
 */
export function filteredEvents(engine: Engine, tenant: string, userId: string, q: EventsQuery) {
  return compilerFor(engine)
    .selectFrom('events')
    .where((eb) => {
      const all = [eb('tenant', '=', tenant), eb('user_id', '=', userId)]
      if (q.startDate) all.push(eb('date', '>=', new Date(q.startDate).toISOString()))
      if (q.endDate) all.push(eb('date', '<=', new Date(q.endDate).toISOString()))
      if (q.medicationType !== undefined) all.push(eb('medication_type', '=', q.medicationType))
      if (q.medicationIds && q.medicationIds.length > 0) all.push(eb('medication_id', 'in', q.medicationIds))
      if (q.nightEvent !== undefined) all.push(eb('night_event', '=', bit(q.nightEvent)))
      if (q.preemptive !== undefined) all.push(eb('preemptive', '=', bit(q.preemptive)))
      if (q.source !== undefined) all.push(eb('source', '=', q.source))
      if (q.addressConfirmed !== undefined) all.push(eb('address_confirmed', '=', bit(q.addressConfirmed)))
      for (const list of ['symptoms', 'triggers'] as const) {
        const wanted = q[list]
        if (wanted && wanted.length > 0) all.push(anyInList(engine, list, wanted) as never)
      }

      return eb.and(all)
    })
}
