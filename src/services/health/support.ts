/**
 * The support view of one user (`users inspect`): the reads it needs and what it makes of their
 * answers. Pure: the command sends the requests and renders the result.
 */
import type {Event, MetricsResult, PlanMedication, User} from './operations.js'

import {ExitCode, OpsError} from '../../errors.js'
import {zoneOffsetMs} from '../zone-offset.js'

/** How many of the newest events the view shows by default (one page holds up to 50). */
export const INSPECT_EVENTS = 10

/** The daily metrics the period's summary is made of. */
export const PERIOD_METRICS = ['eventsRescue', 'eventsRescueNight', 'eventsControllerAdministered', 'eventsControllerPrescribed'] as const

export interface PeriodSummary {
  /** The period: from `since` (default: midnight in the user's time zone RECENT_DAYS - 1 days before the service's today) to `until` (default: the service's now). */
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


/**
 * Why the default period is the last seven days, today included, and not the month so far: support
 * asks about a patient's recent days, and on the first of a month "this month" holds almost nothing.
 * Seven whole days in the user's zone also hold every weekday once, so adherence is not skewed by
 * the day of the week.
 */
export const RECENT_DAYS = 7

/** Midnight (in `timeZone`; UTC for a zone the runtime does not know) of the first of the `days` local days that end with `now`'s, as an instant. */
export function recentDaysStart(now: Date, timeZone: string, days = RECENT_DAYS): Date {
  if (!knownZone(timeZone)) return recentDaysStart(now, 'UTC', days)
  const local = new Date(now.getTime() + zoneOffsetMs(now.getTime(), timeZone))
  const guess = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() - (days - 1))
  // The offset at that midnight may differ from now's (a DST change in between): take the one in force then.
  return new Date(guess - zoneOffsetMs(guess - zoneOffsetMs(guess, timeZone), timeZone))
}

/** The period's summary from a getMetrics answer for PERIOD_METRICS, daily. */
export function summarizePeriod(result: MetricsResult, range: {endDate: string; startDate: string; timeZone: string}): PeriodSummary {
  const days = result.periods.daily
  // Asked for daily windows, answered none: a summary of zeros would be invented, not read.
  if (!days) throw new OpsError('the getMetrics answer has no daily windows, which were asked for; nothing was summarised from it', ExitCode.Server)
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
