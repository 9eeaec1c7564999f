/**
 * Events: the flags of `events add/update` and the filters of `events list` (its pages are
 * streamed by the base command, from the getEvents row's paging).
 */
import * as Flags from '@oclif/core/flags'

import type {QueryOf} from '../../http/operation.js'

import {UsageError} from '../../errors.js'
import {type healthOps, MEDICATION_TYPES, SOURCES, SYMPTOMS, TRIGGERS} from '../../services/health/operations.js'
import {parseDateRange, parseIsoDate} from '../../services/health/validate.js'
import {parseTimeInput} from '../../services/time-input.js'
import {readJsonData} from '../data-input.js'

/** Fields of an event as flags (`events add`, `events update`); `--data` gives a whole body, flags override its fields. */
export const eventFlags = {
  data: Flags.string({char: 'd', description: 'event as JSON: inline, @file.json, or - for stdin (flags override its fields)'}),
  date: Flags.string({description: 'when it happened: ISO 8601 (2026-03-01T08:30:00+08:00), a duration ago (2h) or now'}),
  'medication-id': Flags.string({description: 'medication id'}),
  'medication-type': Flags.option({description: 'medication type', options: MEDICATION_TYPES})(),
  source: Flags.option({description: 'where the event comes from', options: SOURCES})(),
  doses: Flags.integer({description: 'number of doses', min: 1}),
  preemptive: Flags.boolean({allowNo: true, description: 'taken before exposure to a trigger'}),
  symptom: Flags.option({delimiter: ',', description: 'a symptom (repeatable or comma separated)', multiple: true, multipleNonGreedy: true, options: SYMPTOMS})(),
  trigger: Flags.option({delimiter: ',', description: 'a trigger (repeatable or comma separated)', multiple: true, multipleNonGreedy: true, options: TRIGGERS})(),
  address: Flags.string({description: 'where it happened'}),
  'address-confirmed': Flags.boolean({allowNo: true, description: 'the address was confirmed'}),
}

export interface EventFlagValues {
  data?: string
  date?: string
  'medication-id'?: string
  'medication-type'?: string
  source?: string
  doses?: number
  preemptive?: boolean
  symptom?: string[]
  trigger?: string[]
  address?: string
  'address-confirmed'?: boolean
}

/** The request body from `--data` and the flags (flags win). Dates are checked here; the rest by the operation's schema. */
export async function eventBodyFromFlags(flags: EventFlagValues, options: {defaultDate?: string} = {}): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {}
  if (flags.data !== undefined) {
    const data = await readJsonData(flags.data)
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new UsageError('--data must be a JSON object')
    body = {...(data as Record<string, unknown>)}
  }

  const set = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value
  }

  set('date', flags.date === undefined ? undefined : parseTimeInput(flags.date, 'date').toISOString())
  set('medicationId', flags['medication-id'])
  set('medicationType', flags['medication-type'])
  set('source', flags.source)
  set('doses', flags.doses)
  set('preemptive', flags.preemptive)
  set('symptoms', flags.symptom)
  set('triggers', flags.trigger)
  set('address', flags.address)
  set('addressConfirmed', flags['address-confirmed'])
  if (body.date === undefined && options.defaultDate) body.date = options.defaultDate
  else if (typeof body.date === 'string') body.date = parseIsoDate(body.date, 'date')
  return body
}

/** Filters of `events list`, one per query parameter of getEvents (spec section 4). */
export const eventFilterFlags = {
  start: Flags.string({description: 'events on or after this time: ISO 8601, a duration back from now (7d), today or yesterday'}),
  end: Flags.string({description: 'events on or before this time: ISO 8601, a duration back from now, today or yesterday'}),
  'medication-type': Flags.option({description: 'only this medication type', options: MEDICATION_TYPES})(),
  'medication-id': Flags.string({delimiter: ',', description: 'only these medications (repeatable or comma separated)', multiple: true, multipleNonGreedy: true}),
  night: Flags.boolean({allowNo: true, description: 'only night events, 22:00-06:00 in the user time zone (--no-night: only day events)'}),
  preemptive: Flags.boolean({allowNo: true, description: 'only preemptive events (--no-preemptive: only others)'}),
  source: Flags.option({description: 'only events from this source', options: SOURCES})(),
  symptom: Flags.option({delimiter: ',', description: 'only events with any of these symptoms (repeatable or comma separated)', multiple: true, multipleNonGreedy: true, options: SYMPTOMS})(),
  trigger: Flags.option({delimiter: ',', description: 'only events with any of these triggers (repeatable or comma separated)', multiple: true, multipleNonGreedy: true, options: TRIGGERS})(),
  'address-confirmed': Flags.boolean({
    allowNo: true,
    description: 'only events whose address is confirmed (--no-address-confirmed: not confirmed)',
  }),
}

export interface EventFilterValues {
  start?: string
  end?: string
  'medication-type'?: (typeof MEDICATION_TYPES)[number]
  'medication-id'?: string[]
  night?: boolean
  preemptive?: boolean
  source?: (typeof SOURCES)[number]
  symptom?: string[]
  trigger?: string[]
  'address-confirmed'?: boolean
}

/** Flags -> getEvents query (arrays become repeated keys). */
export function eventsQueryFromFlags(flags: EventFilterValues): QueryOf<typeof healthOps.getEvents> {
  const {endDate, startDate} = parseDateRange(flags.start, flags.end)
  return {
    startDate,
    endDate,
    medicationType: flags['medication-type'],
    medicationIds: flags['medication-id'],
    nightEvent: flags.night,
    preemptive: flags.preemptive,
    source: flags.source,
    symptoms: flags.symptom,
    triggers: flags.trigger,
    addressConfirmed: flags['address-confirmed'],
  }
}
