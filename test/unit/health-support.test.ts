/** The pure parts of health support: the plan check's facts, this month's range and summary. */
import {describe, expect, it} from 'vitest'

import {PlanMedication} from '../../src/services/health/operations.js'
import {checkEventAgainstPlan, needsPlanCheck} from '../../src/services/health/plan-check.js'
import {recentDaysStart, summarizePeriod} from '../../src/services/health/support.js'

const plan = [
  PlanMedication.parse({medicationId: 'med-fluticasone', medicationType: 'controller'}),
  PlanMedication.parse({medicationId: 'med-salbutamol', medicationType: 'rescue'}),
  PlanMedication.parse({medicationId: 'med-trial'}), // a service that does not say the type
]
const entries = [
  {medicationId: 'med-fluticasone', medicationType: 'controller'},
  {medicationId: 'med-salbutamol', medicationType: 'rescue'},
  {medicationId: 'med-trial'},
]

describe('checkEventAgainstPlan', () => {
  it('accepts a medication of the plan with its type, or without one', () => {
    expect(checkEventAgainstPlan({medicationId: 'med-salbutamol', medicationType: 'rescue'}, plan)).toEqual({ok: true})
    expect(checkEventAgainstPlan({medicationId: 'med-fluticasone'}, plan)).toEqual({ok: true})
  })

  it('refuses a medication not on the plan, naming the plan', () => {
    expect(checkEventAgainstPlan({medicationId: 'med-nope', medicationType: 'rescue'}, plan)).toEqual({
      ok: false,
      problem: 'not-on-plan',
      medicationId: 'med-nope',
      plan: entries,
    })
    expect(checkEventAgainstPlan({medicationId: 'med-salbutamol'}, [])).toMatchObject({ok: false, problem: 'not-on-plan', plan: []})
  })

  it("refuses another type than the plan's; a plan medication without a type is checked by id only", () => {
    expect(checkEventAgainstPlan({medicationId: 'med-fluticasone', medicationType: 'rescue'}, plan)).toEqual({
      ok: false,
      problem: 'wrong-type',
      medicationId: 'med-fluticasone',
      medicationType: 'rescue',
      expectedType: 'controller',
      plan: entries,
    })
    expect(checkEventAgainstPlan({medicationId: 'med-trial', medicationType: 'rescue'}, plan)).toEqual({ok: true})
  })

  it('is needed only when the body names a medication or a type', () => {
    expect(needsPlanCheck({doses: 2})).toBe(false)
    expect(needsPlanCheck({medicationType: 'rescue'})).toBe(true)
    expect(needsPlanCheck({medicationId: 'x'})).toBe(true)
  })
})

describe('recentDaysStart: the default period of users inspect', () => {
  const at = (now: string, zone: string) => recentDaysStart(new Date(now), zone).toISOString()

  it('is local midnight six days before local today, so the period holds 7 days with today, at the edges of months and days', () => {
    // the 1st of a month, in Manila: the period reaches back into the month before, never empty
    expect(at('2026-12-01T02:00:00Z', 'Asia/Manila')).toBe('2026-11-24T16:00:00.000Z')
    // 23:30 UTC on the last day of a month is already the 1st in Manila (UTC+8)
    expect(at('2026-11-30T23:30:00Z', 'Asia/Manila')).toBe('2026-11-24T16:00:00.000Z')
    expect(at('2026-11-30T23:30:00Z', 'UTC')).toBe('2026-11-24T00:00:00.000Z')
    // the last day of a month, and of a year
    expect(at('2026-12-31T12:00:00Z', 'UTC')).toBe('2026-12-25T00:00:00.000Z')
    expect(at('2027-01-03T12:00:00Z', 'UTC')).toBe('2026-12-28T00:00:00.000Z')
    // a leap day in between
    expect(at('2028-03-02T12:00:00Z', 'UTC')).toBe('2028-02-25T00:00:00.000Z')
  })

  it('takes the offset in force at that midnight, across a DST change', () => {
    // EDT now (March 10), EST on March 4
    expect(at('2026-03-10T15:00:00Z', 'America/New_York')).toBe('2026-03-04T05:00:00.000Z')
    // still November 1st in New York (EST since 06:00Z), EDT six days before
    expect(at('2026-11-02T03:00:00Z', 'America/New_York')).toBe('2026-10-26T04:00:00.000Z')
  })

  it('counts in UTC for a zone the runtime does not know, rather than failing', () => {
    expect(at('2026-03-15T10:00:00Z', 'Mars/Olympus_Mons')).toBe('2026-03-09T00:00:00.000Z')
  })
})

describe('summarizePeriod', () => {
  const range = {startDate: '2026-02-28T16:00:00.000Z', endDate: '2026-03-03T04:00:00.000Z', timeZone: 'Asia/Manila'}
  const day = (date: string, values: Record<string, null | number>) => ({date, values})

  it('adds the daily counts; adherence counts at most the prescribed doses of each day', () => {
    const summary = summarizePeriod(
      {
        periods: {
          daily: [
            day('2026-03-01', {eventsRescue: 2, eventsRescueNight: 1, eventsControllerAdministered: 6, eventsControllerPrescribed: 4}),
            day('2026-03-02', {eventsRescue: 1, eventsRescueNight: 0, eventsControllerAdministered: 0, eventsControllerPrescribed: 4}),
            day('2026-03-03', {eventsRescue: null, eventsRescueNight: null, eventsControllerAdministered: 2, eventsControllerPrescribed: 4}),
          ],
        },
      },
      range,
    )
    expect(summary).toEqual({
      ...range,
      rescueEvents: 3,
      rescueNightEvents: 1,
      controllerDosesTaken: 8,
      controllerDosesPrescribed: 12,
      // (4 + 0 + 2) / 12: the extra doses of the first day do not make up for the missed ones
      adherencePercent: 50,
    })
  })

  it('has no adherence without a prescription', () => {
    const summary = summarizePeriod({periods: {daily: [day('2026-03-01', {eventsRescue: 1, eventsControllerPrescribed: 0})]}}, range)
    expect(summary.adherencePercent).toBeNull()
    expect(summary.rescueEvents).toBe(1)
  })

  it('an answer without the daily windows asked for is exit 6, never a summary of zeros', () => {
    expect(() => summarizePeriod({periods: {weekly: []}}, range)).toThrow(
      expect.objectContaining({exitCode: 6, message: expect.stringContaining('the getMetrics answer has no daily windows')}),
    )
  })
})

