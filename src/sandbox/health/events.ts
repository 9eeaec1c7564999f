/**
 * The filters of getEvents as SQL over the events table (see core/schema.ts), and its opaque
 * cursor paging tokens (base64url of the direction and the cursor event's date and id). Events
 * are listed newest first (date desc, then id desc); a token is used with the same filters as the
 * request that produced it.
 */
import * as z from 'zod'

import {type EventsQuery, healthService} from '../../services/health/operations.js'
import {pageCursor} from '../core/page-cursor.js'

export interface Cursor {
  date: string
  id: string
  /** n: the page after this event; p: the page before it */
  dir: 'n' | 'p'
}

const tokens = pageCursor(healthService.operations.getEvents, z.tuple([z.enum(['n', 'p']), z.string(), z.string()]))

export function encodeToken(c: Cursor): string {
  return tokens.encode([c.dir, c.date, c.id])
}

export function decodeToken(token: string): Cursor {
  const [dir, date, id] = tokens.decode(token)
  return {dir, date, id}
}

export interface SqlFilter {
  /** conditions joined by AND; the texts are constants (values are bound) */
  where: string
  params: unknown[]
}

const placeholders = (n: number) => Array.from({length: n}, () => '?').join(', ')
const bit = (value: boolean) => (value ? 1 : 0)

/** A user's events that match the query's filters. Symptoms and triggers match when any one listed is on the event. */
export function eventFilter(userId: string, q: EventsQuery): SqlFilter {
  const where = ['user_id = ?']
  const params: unknown[] = [userId]
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition)
    params.push(...values)
  }

  if (q.startDate) add('date >= ?', new Date(q.startDate).toISOString())
  if (q.endDate) add('date <= ?', new Date(q.endDate).toISOString())
  if (q.medicationType !== undefined) add('medication_type = ?', q.medicationType)
  if (q.medicationIds && q.medicationIds.length > 0) add(`medication_id IN (${placeholders(q.medicationIds.length)})`, ...q.medicationIds)
  if (q.nightEvent !== undefined) add('night_event = ?', bit(q.nightEvent))
  if (q.preemptive !== undefined) add('preemptive = ?', bit(q.preemptive))
  if (q.source !== undefined) add('source = ?', q.source)
  if (q.addressConfirmed !== undefined) add('address_confirmed = ?', bit(q.addressConfirmed))
  for (const list of ['symptoms', 'triggers'] as const) {
    const wanted = q[list]
    if (wanted && wanted.length > 0) {
      add(`EXISTS (SELECT 1 FROM json_each(doc, '$.${list}') WHERE value IN (${placeholders(wanted.length)}))`, ...wanted)
    }
  }

  return {where: where.join(' AND '), params}
}
