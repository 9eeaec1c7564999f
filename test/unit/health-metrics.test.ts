import {describe, expect, it} from 'vitest'

import type {Event} from '../../src/services/health/operations.js'

import {computeMetrics, type MetricsInput} from '../../src/sandbox/health/metrics.js'
import {DEMO_GROUP} from '../../src/sandbox/health/state.js'

let n = 0
/** An event at a local Manila time (UTC+8, no DST). */
function ev(local: string, fields: Partial<Event>): Event {
  return {id: `e${++n}`, date: new Date(`${local}+08:00`).toISOString(), symptoms: [], triggers: [], doses: 1, source: 'manual', ...fields}
}

const rescue = (local: string, fields: Partial<Event> = {}) =>
  ev(local, {medicationId: 'med-salbutamol', medicationType: 'rescue', ...fields})
const controller = (local: string, doses: number) =>
  ev(local, {medicationId: 'med-fluticasone', medicationType: 'controller', source: 'sensor', doses})

// Hand-computed set (Asia/Manila). 2026-03-02 is a Monday.
const events: Event[] = [
  rescue('2026-02-20T10:00:00'), // before the range: baseline only
  rescue('2026-02-25T22:15:00'), // before the range: baseline only
  rescue('2026-03-02T23:30:00', {source: 'sensor', symptoms: ['cough', 'wokenAtNight'], triggers: ['coldAir']}), // E1 night, Mon
  rescue('2026-03-03T00:30:00', {symptoms: ['cough']}), // E2 night across midnight, Tue
  rescue('2026-03-03T07:15:00', {symptoms: ['wheeze'], triggers: ['exercise']}), // E3 morning
  rescue('2026-03-03T13:00:00', {source: 'sensor', triggers: ['exercise']}), // E4 afternoon
  rescue('2026-03-04T19:00:00'), // E5 evening, Wed
  controller('2026-03-02T08:00:00', 2),
  controller('2026-03-02T20:00:00', 2),
  controller('2026-03-03T08:00:00', 2),
  controller('2026-03-04T08:00:00', 3), // one extra dose: does not make up for the missed one
]

const base: MetricsInput = {
  timeZone: 'Asia/Manila',
  events,
  plan: [
    {
      medicationId: 'med-fluticasone',
      usageList: [
        {hour: 8, minute: 0, doses: 2},
        {hour: 20, minute: 0, doses: 2},
      ],
      sensors: [],
    },
    {medicationId: 'med-salbutamol', usageList: [], sensors: []},
  ],
  act: [
    {date: '2026-02-01T01:00:00.000Z', score: 10, kind: 'adult'},
    {date: '2026-03-03T01:00:00.000Z', score: 20, kind: 'child'},
    {date: '2026-03-02T01:00:00.000Z', score: 18, kind: 'adult'},
  ],
  groups: [DEMO_GROUP],
  start: new Date('2026-03-02T00:00:00+08:00'),
  end: new Date('2026-03-04T23:59:59+08:00'),
  byPeriod: {},
}

describe('metrics computed from events (Asia/Manila)', () => {
  it('daily rescue counts split by source and night, on local days', () => {
    const {daily} = computeMetrics({
      ...base,
      byPeriod: {
        daily: [
          'eventsRescue',
          'eventsRescueSensor',
          'eventsRescueManual',
          'eventsRescueNight',
          'eventsRescueNightSensor',
          'eventsRescueNightManual',
        ],
      },
    })
    expect(daily).toEqual([
      {
        date: '2026-03-02',
        values: {
          eventsRescue: 1,
          eventsRescueSensor: 1,
          eventsRescueManual: 0,
          eventsRescueNight: 1,
          eventsRescueNightSensor: 1,
          eventsRescueNightManual: 0,
        },
      },
      {
        date: '2026-03-03',
        values: {
          eventsRescue: 3,
          eventsRescueSensor: 1,
          eventsRescueManual: 2,
          eventsRescueNight: 1,
          eventsRescueNightSensor: 0,
          eventsRescueNightManual: 1,
        },
      },
      {
        date: '2026-03-04',
        values: {
          eventsRescue: 1,
          eventsRescueSensor: 0,
          eventsRescueManual: 1,
          eventsRescueNight: 0,
          eventsRescueNightSensor: 0,
          eventsRescueNightManual: 0,
        },
      },
    ])
  })

  it('controller doses administered vs prescribed, and the 14-day rescue baseline', () => {
    const {daily} = computeMetrics({
      ...base,
      byPeriod: {daily: ['eventsControllerAdministered', 'eventsControllerPrescribed', 'rescueBaseline']},
    })
    expect(daily.map((w) => w.values)).toEqual([
      {eventsControllerAdministered: 4, eventsControllerPrescribed: 4, rescueBaseline: 0.14}, // 2/14
      {eventsControllerAdministered: 2, eventsControllerPrescribed: 4, rescueBaseline: 0.21}, // 3/14
      {eventsControllerAdministered: 3, eventsControllerPrescribed: 4, rescueBaseline: 0.43}, // 6/14
    ])
  })

  it('weekly adherence: doses taken as prescribed over doses prescribed, capped per day', () => {
    const {weekly} = computeMetrics({...base, byPeriod: {weekly: ['adherencePercent']}})
    // (min(4,4) + min(2,4) + min(3,4)) / (3 x 4) = 9 / 12
    expect(weekly).toEqual([{date: '2026-03-02', values: {adherencePercent: 75}}])
  })

  it('monthly trends: shares of rescue events by time of day, weekday, symptom and trigger', () => {
    const {monthly} = computeMetrics({
      ...base,
      byPeriod: {
        monthly: [
          'trendTimeOfDayMorning',
          'trendTimeOfDayAfternoon',
          'trendTimeOfDayEvening',
          'trendTimeOfDayNight',
          'trendDayOfWeekMonday',
          'trendDayOfWeekTuesday',
          'trendDayOfWeekWednesday',
          'trendDayOfWeekSunday',
          'trendSymptomCough',
          'trendSymptomWokenAtNight',
          'trendSymptomWheeze',
          'trendSymptomChestTightness',
          'trendTriggerColdAir',
          'trendTriggerExercise',
          'trendTriggerDust',
        ],
      },
    })
    expect(monthly).toEqual([
      {
        date: '2026-03-01',
        values: {
          trendTimeOfDayMorning: 20,
          trendTimeOfDayAfternoon: 20,
          trendTimeOfDayEvening: 20,
          trendTimeOfDayNight: 40,
          trendDayOfWeekMonday: 20,
          trendDayOfWeekTuesday: 60,
          trendDayOfWeekWednesday: 20,
          trendDayOfWeekSunday: 0,
          trendSymptomCough: 40,
          trendSymptomWokenAtNight: 20,
          trendSymptomWheeze: 20,
          trendSymptomChestTightness: 0,
          trendTriggerColdAir: 20,
          trendTriggerExercise: 40,
          trendTriggerDust: 0,
        },
      },
    ])
  })

  it('a month without rescue events has null trends, not zeros', () => {
    const {monthly} = computeMetrics({
      ...base,
      start: new Date('2026-04-01T00:00:00+08:00'),
      end: new Date('2026-04-02T00:00:00+08:00'),
      byPeriod: {monthly: ['trendTimeOfDayNight']},
    })
    expect(monthly).toEqual([{date: '2026-04-01', values: {trendTimeOfDayNight: null}}])
  })

  it('series: one point per ACT result in range, oldest first, only the kinds asked', () => {
    expect(computeMetrics({...base, byPeriod: {series: ['actAdult']}}).series).toEqual([
      {date: '2026-03-02T01:00:00.000Z', values: {actAdult: 18}},
    ])
    expect(computeMetrics({...base, byPeriod: {series: ['actAdult', 'actChild']}}).series).toEqual([
      {date: '2026-03-02T01:00:00.000Z', values: {actAdult: 18, actChild: null}},
      {date: '2026-03-03T01:00:00.000Z', values: {actAdult: null, actChild: 20}},
    ])
  })

  it('the time zone decides days and nights: the same events read in UTC fall differently', () => {
    const {daily} = computeMetrics({
      ...base,
      timeZone: 'UTC',
      start: new Date('2026-03-02T00:00:00Z'),
      end: new Date('2026-03-02T23:59:59Z'),
      byPeriod: {daily: ['eventsRescue', 'eventsRescueNight']},
    })
    // E1 (15:30Z), E2 (16:30Z) are both on 2026-03-02 in UTC and neither is at night; E3 is 23:15Z: night
    expect(daily).toEqual([{date: '2026-03-02', values: {eventsRescue: 3, eventsRescueNight: 1}}])
  })

  it('America/New_York: local days follow the offset (UTC-5 in winter)', () => {
    const {daily} = computeMetrics({
      ...base,
      timeZone: 'America/New_York',
      events: [rescue('2026-03-03T12:30:00')], // 04:30Z -> 2026-03-02 23:30 in New York: a night event of the 2nd
      start: new Date('2026-03-02T00:00:00-05:00'),
      end: new Date('2026-03-03T23:59:59-05:00'),
      byPeriod: {daily: ['eventsRescue', 'eventsRescueNight']},
    })
    expect(daily).toEqual([
      {date: '2026-03-02', values: {eventsRescue: 1, eventsRescueNight: 1}},
      {date: '2026-03-03', values: {eventsRescue: 0, eventsRescueNight: 0}},
    ])
  })
})
