/**
 * Metrics computed from stored events, in the user's time zone (issue 4). Pure: state in, windows out.
 *
 * Definitions (all days, weeks and months are local to the user's time zone):
 * - range: events with startDate <= date <= endDate; the windows cover every local day, week or
 *   month the range touches, each labelled with its first day (`YYYY-MM-DD`; weeks start Monday).
 * - daily `eventsRescue*`: number of rescue events that day; Sensor/Manual by source; Night when
 *   the event is a night event (22:00-06:00), so 23:30 counts on its own day and 00:30 on the next.
 * - daily `eventsControllerAdministered`: doses of controller events that day.
 * - daily `eventsControllerPrescribed`: doses per day of the plan's controller medications (sum of
 *   their usage lists). A medication is a controller when a group catalogue says so, or, when no
 *   catalogue knows it, when it has a usage list. The current plan is used for every day.
 * - daily `rescueBaseline`: mean daily rescue events over the 14 days before the day (all stored
 *   events, not only those in the range), 2 decimals.
 * - weekly `adherencePercent`: 100 x sum over the week's days in range of min(administered,
 *   prescribed) / sum of prescribed, 1 decimal (extra doses one day do not make up for a missed
 *   one); null when nothing is prescribed.
 * - monthly `trend*`: share in percent (1 decimal) of the month's rescue events in range that fall
 *   in a time of day (morning 06-12, afternoon 12-18, evening 18-22, night 22-06), on a day of the
 *   week, or carry a symptom / trigger; null when the month has no rescue event.
 * - series `actAdult` / `actChild`: one point per ACT result in range, oldest first, dated with its
 *   full date-time; the other kind is null.
 */
import type {Event, GroupConfig, MetricWindow, PlanMedication} from '../../services/health/operations.js'
import type {ActResult} from './state.js'

import {type MetricPeriod} from '../../services/health/metrics.js'
import {SYMPTOMS, TRIGGERS} from '../../services/health/operations.js'
import {addDays, daysBetween, isNightHour, localParts, type LocalParts, monthStart, weekStart} from './time.js'

export interface MetricsInput {
  timeZone: string
  /** the user's events (any order): at least those of the range and of the 15 days before it (the baseline) */
  events: readonly Event[]
  plan: readonly PlanMedication[]
  act: readonly ActResult[]
  /** group catalogues, to tell controller from rescue medications */
  groups: readonly GroupConfig[]
  start: Date
  end: Date
  byPeriod: Partial<Record<MetricPeriod, string[]>>
}

interface LocalEvent {
  event: Event
  at: number
  local: LocalParts
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const capital = (s: string) => s[0].toUpperCase() + s.slice(1)
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

export function computeMetrics(input: MetricsInput): Record<string, MetricWindow[]> {
  const {timeZone} = input
  const startMs = input.start.getTime()
  const endMs = input.end.getTime()
  const all: LocalEvent[] = input.events.map((event) => ({event, at: Date.parse(event.date), local: localParts(event.date, timeZone)}))
  const inRange = all.filter((e) => e.at >= startMs && e.at <= endMs)
  const days = daysBetween(localParts(input.start, timeZone).day, localParts(input.end, timeZone).day)
  const prescribedPerDay = prescribedDoses(input.plan, input.groups)
  const administered = new Map<string, number>()
  for (const e of inRange) {
    if (e.event.medicationType === 'controller') administered.set(e.local.day, (administered.get(e.local.day) ?? 0) + (e.event.doses ?? 1))
  }

  const out: Record<string, MetricWindow[]> = {}
  for (const [period, names] of Object.entries(input.byPeriod) as [MetricPeriod, string[]][]) {
    switch (period) {
      case 'daily': {
        out.daily = daily(days, names, inRange, all, administered, prescribedPerDay)
        break
      }

      case 'weekly': {
        out.weekly = groupDays(days, weekStart).map(([week, weekDays]) => {
          const prescribed = prescribedPerDay * weekDays.length
          const taken = weekDays.reduce((sum, d) => sum + Math.min(administered.get(d) ?? 0, prescribedPerDay), 0)
          return {date: week, values: pick(names, {adherencePercent: prescribed === 0 ? null : round((100 * taken) / prescribed, 1)})}
        })
        break
      }

      case 'monthly': {
        out.monthly = groupDays(days, monthStart).map(([month]) => ({
          date: month,
          values: pick(names, trends(inRange.filter((e) => e.event.medicationType === 'rescue' && monthStart(e.local.day) === month))),
        }))
        break
      }

      case 'series': {
        const startIso = input.start.toISOString()
        const endIso = input.end.toISOString()
        out.series = input.act
          .filter((r) => r.date >= startIso && r.date <= endIso && names.includes(r.kind === 'adult' ? 'actAdult' : 'actChild'))
          .sort((a, b) => a.date.localeCompare(b.date))
          .map((r) => ({
            date: r.date,
            values: pick(names, {actAdult: r.kind === 'adult' ? r.score : null, actChild: r.kind === 'child' ? r.score : null}),
          }))
        break
      }
    }
  }

  return out
}

function daily(
  days: string[],
  names: string[],
  inRange: LocalEvent[],
  all: LocalEvent[],
  administered: Map<string, number>,
  prescribedPerDay: number,
): MetricWindow[] {
  const byDay = new Map<string, LocalEvent[]>()
  for (const e of inRange) {
    if (e.event.medicationType !== 'rescue') continue
    const list = byDay.get(e.local.day) ?? []
    list.push(e)
    byDay.set(e.local.day, list)
  }

  // rescue events per local day over all stored events, for the 14-day baseline
  const rescueAll = new Map<string, number>()
  for (const e of all) if (e.event.medicationType === 'rescue') rescueAll.set(e.local.day, (rescueAll.get(e.local.day) ?? 0) + 1)

  return days.map((day) => {
    const rescue = byDay.get(day) ?? []
    const night = rescue.filter((e) => isNightHour(e.local.hour))
    const count = (list: LocalEvent[], source?: string) => list.filter((e) => !source || e.event.source === source).length
    let before = 0
    for (let i = 1; i <= 14; i++) before += rescueAll.get(addDays(day, -i)) ?? 0
    return {
      date: day,
      values: pick(names, {
        eventsControllerAdministered: administered.get(day) ?? 0,
        eventsControllerPrescribed: prescribedPerDay,
        eventsRescue: count(rescue),
        eventsRescueSensor: count(rescue, 'sensor'),
        eventsRescueManual: count(rescue, 'manual'),
        eventsRescueNight: count(night),
        eventsRescueNightSensor: count(night, 'sensor'),
        eventsRescueNightManual: count(night, 'manual'),
        rescueBaseline: round(before / 14, 2),
      }),
    }
  })
}

function trends(rescue: LocalEvent[]): Record<string, null | number> {
  const n = rescue.length
  const share = (test: (e: LocalEvent) => boolean) => (n === 0 ? null : round((100 * rescue.filter(test).length) / n, 1))
  const values: Record<string, null | number> = {
    trendTimeOfDayMorning: share((e) => e.local.hour >= 6 && e.local.hour < 12),
    trendTimeOfDayAfternoon: share((e) => e.local.hour >= 12 && e.local.hour < 18),
    trendTimeOfDayEvening: share((e) => e.local.hour >= 18 && e.local.hour < 22),
    trendTimeOfDayNight: share((e) => isNightHour(e.local.hour)),
  }
  for (const [i, day] of WEEKDAYS.entries()) values[`trendDayOfWeek${day}`] = share((e) => e.local.weekday === i)
  for (const s of SYMPTOMS) values[`trendSymptom${capital(s)}`] = share((e) => (e.event.symptoms ?? []).includes(s))
  for (const t of TRIGGERS) values[`trendTrigger${capital(t)}`] = share((e) => (e.event.triggers ?? []).includes(t))
  return values
}

/** Doses per day prescribed by the plan's controller medications. */
export function prescribedDoses(plan: readonly PlanMedication[], groups: readonly GroupConfig[]): number {
  const typeOf = new Map<string, string | undefined>()
  for (const g of groups) for (const m of g.medications ?? []) typeOf.set(m.id, m.type)
  let total = 0
  for (const med of plan) {
    const type = typeOf.get(med.medicationId)
    const usage = med.usageList ?? []
    const controller = type === undefined ? usage.length > 0 : type === 'controller'
    if (controller) total += usage.reduce((sum, u) => sum + (u.doses ?? 0), 0)
  }

  return total
}

function groupDays(days: string[], keyOf: (day: string) => string): [string, string[]][] {
  const groups = new Map<string, string[]>()
  for (const d of days) {
    const key = keyOf(d)
    const list = groups.get(key) ?? []
    list.push(d)
    groups.set(key, list)
  }

  return [...groups.entries()]
}

function pick(names: readonly string[], values: Record<string, null | number>): Record<string, null | number> {
  const out: Record<string, null | number> = {}
  for (const n of names) out[n] = values[n] ?? null
  return out
}
