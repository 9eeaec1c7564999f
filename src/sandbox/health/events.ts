/**
 * A user's events, kept sorted newest first (date desc, then id desc), with the filters of
 * getEvents and opaque cursor paging tokens (base64url of the cursor event's date and id and the
 * direction). A token is used with the same filters as the request that produced it.
 */
import type {Event, EventsQuery} from '../../services/health/operations.js'

import {EVENTS_PAGE_SIZE} from '../../services/health/operations.js'
import {SandboxError} from '../types.js'

/** true when a comes before b in the list (newer, or same date and larger id). */
function before(a: {date: string; id: string}, b: {date: string; id: string}): boolean {
  return a.date === b.date ? a.id > b.id : a.date > b.date
}

/** Index of the first event that sorts after the cursor (the cursor itself excluded). */
function indexAfter(list: readonly Event[], cursor: {date: string; id: string}): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (before(list[mid], cursor) || (list[mid].date === cursor.date && list[mid].id === cursor.id)) lo = mid + 1
    else hi = mid
  }

  return lo
}

export function insertSorted(list: Event[], event: Event): void {
  list.splice(indexAfter(list, event), 0, event)
}

export function removeEvent(list: Event[], id: string): Event | undefined {
  const i = list.findIndex((e) => e.id === id)
  return i === -1 ? undefined : list.splice(i, 1)[0]
}

export function sortEvents(list: Event[]): void {
  list.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
}

export function eventFilter(q: EventsQuery): (e: Event) => boolean {
  const meds = q.medicationIds && q.medicationIds.length > 0 ? new Set(q.medicationIds) : undefined
  const symptoms = q.symptoms && q.symptoms.length > 0 ? q.symptoms : undefined
  const triggers = q.triggers && q.triggers.length > 0 ? q.triggers : undefined
  const start = q.startDate ? new Date(q.startDate).toISOString() : undefined
  const end = q.endDate ? new Date(q.endDate).toISOString() : undefined
  return (e) =>
    (start === undefined || e.date >= start) &&
    (end === undefined || e.date <= end) &&
    (q.medicationType === undefined || e.medicationType === q.medicationType) &&
    (meds === undefined || meds.has(e.medicationId ?? '')) &&
    (q.nightEvent === undefined || e.nightEvent === q.nightEvent) &&
    (q.preemptive === undefined || Boolean(e.preemptive) === q.preemptive) &&
    (q.source === undefined || e.source === q.source) &&
    (q.addressConfirmed === undefined || Boolean(e.addressConfirmed) === q.addressConfirmed) &&
    (symptoms === undefined || symptoms.some((s) => (e.symptoms ?? []).includes(s))) &&
    (triggers === undefined || triggers.some((t) => (e.triggers ?? []).includes(t)))
}

interface Cursor {
  date: string
  id: string
  /** n: the page after this event; p: the page before it */
  dir: 'n' | 'p'
}

function encodeToken(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.dir, c.date, c.id])).toString('base64url')
}

function decodeToken(token: string): Cursor {
  try {
    const [dir, date, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[]
    if ((dir === 'n' || dir === 'p') && typeof date === 'string' && typeof id === 'string') return {dir, date, id}
  } catch {}

  throw new SandboxError(400, 'INVALID_PAGING_TOKEN', 'The paging token is not one this service issued', [
    {field: 'pagingToken', description: 'invalid'},
  ])
}

/** One page of the filtered list, newest first, with tokens for the pages around it when they exist. */
export function pageOf(
  list: readonly Event[],
  q: EventsQuery,
  pageSize = EVENTS_PAGE_SIZE,
): {events: Event[]; paging: {next?: string; previous?: string}} {
  const keep = eventFilter(q)
  const cursor = q.pagingToken ? decodeToken(q.pagingToken) : undefined
  const indexes: number[] = []
  if (cursor?.dir === 'p') {
    // walk backwards from just before the cursor (which may have been deleted since)
    let i = indexAfter(list, cursor) - 1
    if (i >= 0 && list[i].id === cursor.id && list[i].date === cursor.date) i--
    for (; i >= 0 && indexes.length < pageSize; i--) if (keep(list[i])) indexes.unshift(i)
  } else {
    for (let i = cursor ? indexAfter(list, cursor) : 0; i < list.length && indexes.length < pageSize; i++) {
      if (keep(list[i])) indexes.push(i)
    }
  }

  const events = indexes.map((i) => list[i])
  const paging: {next?: string; previous?: string} = {}
  if (events.length > 0) {
    const first = indexes[0]
    const last = indexes.at(-1)!
    if (anyMatch(list, last + 1, list.length, keep)) paging.next = encodeToken({dir: 'n', date: list[last].date, id: list[last].id})
    if (anyMatch(list, 0, first, keep)) paging.previous = encodeToken({dir: 'p', date: list[first].date, id: list[first].id})
  }

  return {events, paging}
}

function anyMatch(list: readonly Event[], from: number, to: number, keep: (e: Event) => boolean): boolean {
  for (let i = from; i < to; i++) if (keep(list[i])) return true
  return false
}
