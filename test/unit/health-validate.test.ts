import {describe, expect, it} from 'vitest'

import {ExitCode, RuleError, UsageError} from '../../src/errors.js'
import {METRIC_TABLE, planMetricRequest} from '../../src/services/health/metrics.js'
import {AddEventBody, EventsQuery} from '../../src/services/health/operations.js'
import {checkMetricRequest, normalizeMac, parseIsoDate, parseSensor, parseUsage} from '../../src/services/health/validate.js'

describe('health input checks', () => {
  it('dates: ISO 8601 with an offset, or a calendar date; returned in UTC', () => {
    expect(parseIsoDate('2026-03-01T23:30:00+08:00', '--date')).toBe('2026-03-01T15:30:00.000Z')
    expect(parseIsoDate('2026-03-01', '--start')).toBe('2026-03-01T00:00:00.000Z')
    expect(parseIsoDate('2026-03-01T08:00:00.5Z', '--end')).toBe('2026-03-01T08:00:00.500Z')
    for (const bad of ['2026-02-30', '2026-13-01T00:00:00Z', 'yesterday', '03/01/2026', '2026-03-01T25:00:00Z']) {
      expect(() => parseIsoDate(bad, '--date')).toThrow(UsageError)
    }

    expect(() => parseIsoDate('2026-03-01T08:00:00', '--date')).toThrow(/add Z or an offset/)
  })

  it('MAC addresses are normalised to upper case with colons; anything else is refused', () => {
    expect(normalizeMac('aa:bb:cc:dd:ee:0f')).toBe('AA:BB:CC:DD:EE:0F')
    expect(normalizeMac('aa-bb-cc-dd-ee-0f')).toBe('AA:BB:CC:DD:EE:0F')
    for (const bad of ['AA:BB:CC:DD:EE', 'AA:BB:CC:DD:EE:GG', 'AABBCCDDEEFF', 'AA:BB:CC:DD:EE:FF:00']) {
      expect(() => normalizeMac(bad)).toThrow(UsageError)
    }
  })

  it('usage entries and sensors from flags', () => {
    expect(parseUsage('08:30=2')).toEqual({hour: 8, minute: 30, doses: 2})
    expect(parseUsage('7:05')).toEqual({hour: 7, minute: 5, doses: 1})
    expect(() => parseUsage('24:00=1')).toThrow(UsageError)
    expect(() => parseUsage('08:30=0')).toThrow(UsageError)
    expect(parseSensor('aa:bb:cc:dd:ee:01=hfa')).toEqual({mac: 'AA:BB:CC:DD:EE:01', model: 'hfa'})
    expect(() => parseSensor('aa:bb:cc:dd:ee=hfa')).toThrow(UsageError)
  })

  it('symptom and trigger keys are checked by the request schemas', () => {
    const base = {date: '2026-03-01T08:00:00Z', medicationId: 'm', medicationType: 'rescue'}
    expect(AddEventBody.safeParse({...base, symptoms: ['cough'], triggers: ['coldAir']}).success).toBe(true)
    expect(AddEventBody.safeParse({...base, symptoms: ['sneezing']}).success).toBe(false)
    expect(AddEventBody.safeParse({...base, triggers: ['pollen']}).success).toBe(false)
    expect(AddEventBody.safeParse({...base, date: '2026-03-01 08:00'}).success).toBe(false)
    // unknown fields are kept
    expect(AddEventBody.parse({...base, note: 'kept'})).toMatchObject({note: 'kept'})
    expect(EventsQuery.parse({nightEvent: 'false', symptoms: 'cough'})).toEqual({nightEvent: false, symptoms: ['cough']})
  })

  it('metric name/period pairs: exit 5 with the valid names of the period', () => {
    expect(checkMetricRequest(['eventsRescue', 'rescueBaseline'], ['daily'])).toEqual(['daily'])
    expect(checkMetricRequest(['eventsRescue', 'adherencePercent'])).toEqual(['daily', 'weekly'])
    let error: unknown
    try {
      checkMetricRequest(['eventsRescue'], ['weekly'])
    } catch (error_) {
      error = error_
    }

    expect(error).toBeInstanceOf(RuleError)
    expect((error as RuleError).exitCode).toBe(ExitCode.Refused)
    expect((error as RuleError).message).toBe('Metric eventsRescue is a daily metric, not weekly')
    // Asking it in its own period is a next step, worded with the flag by the CLI (src/cli/hints.ts).
    expect((error as RuleError).next).toEqual([{period: 'daily', step: 'metrics-period'}])
    expect((error as RuleError).suggestions).toEqual(['Valid names for weekly: adherencePercent'])
    expect(() => checkMetricRequest(['eventsRescue'], ['daily', 'monthly'])).toThrow(/^No metric asked for period monthly$/)
    expect(() => checkMetricRequest(['nope'])).toThrow(/Unknown metric nope/)
    expect(() => checkMetricRequest(['actAdult'], ['yearly'])).toThrow(/Unknown period yearly/)
  })

  it('the table is the spec section 8 table', () => {
    expect(Object.fromEntries(Object.entries(METRIC_TABLE).map(([p, names]) => [p, names.length]))).toEqual({
      series: 2,
      daily: 9,
      weekly: 1,
      monthly: 29,
    })
    expect(planMetricRequest(['trendTriggerUnknown', 'actChild'])).toEqual({
      byPeriod: {monthly: ['trendTriggerUnknown'], series: ['actChild']},
    })
  })
})
