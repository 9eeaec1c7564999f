/**
 * The support view of one user (`users inspect`): the reads it needs and what it makes of their
 * answers. Pure: the command sends the requests and renders the result.
 */
import type {Event, MetricsResult, PlanMedication, User} from './operations.js'

import {zoneOffsetMs} from '../zone-offset.js'

/** How many of the newest events the view shows by default (one page holds up to 50). */
export const INSPECT_EVENTS = 10

/** The daily metrics the period's summary is made of. */
export const PERIOD_METRICS = ['eventsRescue', 'eventsRescueNight', 'eventsControllerAdministered', 'eventsControllerPrescribed'] as const

export interface PeriodSummary {
  /** The period: from `since` (default the first instant of this month in the user's time zone) to `until` (default the service's now). */
  startDate: string
  endDate: string
  timeZone: string
  rescueEvents: number
  rescueNightEvents: number
  controllerDosesTaken: number
  controllerDosesPrescribed: number
  /** 100 x doses taken (at most the prescribed ones each day) / doses prescribed; null without a prescription. */
  adherencePercent: null | number
}

export interface Inspection {
  /** The user document without its plan (shown next to it). */
  user: User
  plan: {medications: PlanMedication[]}
  events: Event[]
  metrics: PeriodSummary
}

function knownZone(timeZone: string): boolean {
  try {
    return Boolean(new Intl.DateTimeFormat('en-US', {timeZone}).resolvedOptions().timeZone)
  } catch {
    return false
  }
}


/** Midnight of the first day of `now`'s month in `timeZone` (UTC for a zone the runtime does not know), as an instant. */
export function monthStart(now: Date, timeZone: string): Date {
  if (!knownZone(timeZone)) return monthStart(now, 'UTC')
  const local = new Date(now.getTime() + zoneOffsetMs(now.getTime(), timeZone))
  const guess = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1)
  // The offset at local midnight may differ from now's (a DST change this month): take the one in force then.
  return new Date(guess - zoneOffsetMs(guess - zoneOffsetMs(guess, timeZone), timeZone))
}

/** The period's summary from a getMetrics answer for PERIOD_METRICS, daily. */
export function summarizePeriod(result: MetricsResult, range: {endDate: string; startDate: string; timeZone: string}): PeriodSummary {
  const days = result.periods.daily ?? []
  const sum = (name: string) => days.reduce((total, d) => total + (d.values[name] ?? 0), 0)
  let taken = 0
  let prescribed = 0
  for (const d of days) {
    const p = d.values.eventsControllerPrescribed ?? 0
    taken += Math.min(d.values.eventsControllerAdministered ?? 0, p)
    prescribed += p
  }

  return {
    ...range,
    timeZone: result.timeZone ?? range.timeZone,
    rescueEvents: sum('eventsRescue'),
    rescueNightEvents: sum('eventsRescueNight'),
    controllerDosesTaken: sum('eventsControllerAdministered'),
    controllerDosesPrescribed: prescribed,
    adherencePercent: prescribed === 0 ? null : Math.round((1000 * taken) / prescribed) / 10,
  }
}

/** Splits the user document into who they are and their plan. */
export function userAndPlan(user: User): Pick<Inspection, 'plan' | 'user'> {
  const {plan, ...who} = user
  return {plan: {medications: plan?.medications ?? []}, user: who as User}
}
