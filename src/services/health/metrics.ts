/**
 * Supported metric names per period (spec section 8): the ONE table both the client (checks a
 * request before sending it, `metrics names`) and the sandbox (answers 400, computes the values) use.
 */
export const METRIC_TABLE = {
  series: ['actAdult', 'actChild'],
  daily: [
    'eventsControllerAdministered',
    'eventsControllerPrescribed',
    'eventsRescue',
    'eventsRescueSensor',
    'eventsRescueManual',
    'eventsRescueNight',
    'eventsRescueNightSensor',
    'eventsRescueNightManual',
    'rescueBaseline',
  ],
  weekly: ['adherencePercent'],
  monthly: [
    'trendTimeOfDayMorning',
    'trendTimeOfDayAfternoon',
    'trendTimeOfDayEvening',
    'trendTimeOfDayNight',
    'trendDayOfWeekSunday',
    'trendDayOfWeekMonday',
    'trendDayOfWeekTuesday',
    'trendDayOfWeekWednesday',
    'trendDayOfWeekThursday',
    'trendDayOfWeekFriday',
    'trendDayOfWeekSaturday',
    'trendSymptomWokenAtNight',
    'trendSymptomCough',
    'trendSymptomWheeze',
    'trendSymptomDifficultyBreathing',
    'trendSymptomShortnessOfBreath',
    'trendSymptomChestTightness',
    'trendSymptomActivityLimitations',
    'trendTriggerSmellsOrScents',
    'trendTriggerRespiratoryInfection',
    'trendTriggerTobacco',
    'trendTriggerColdAir',
    'trendTriggerAnimals',
    'trendTriggerDust',
    'trendTriggerOutdoorAllergens',
    'trendTriggerWorkplaceExposure',
    'trendTriggerAirPollution',
    'trendTriggerExercise',
    'trendTriggerUnknown',
  ],
} as const satisfies Record<string, readonly string[]>

export type MetricPeriod = keyof typeof METRIC_TABLE
export type MetricName = (typeof METRIC_TABLE)[MetricPeriod][number]
export const METRIC_PERIODS = Object.keys(METRIC_TABLE) as MetricPeriod[]

/** Default range of getMetrics (spec section 8): 30 days before the call up to now. */
export const METRICS_DEFAULT_RANGE_DAYS = 30

export function isPeriod(value: string): value is MetricPeriod {
  return Object.hasOwn(METRIC_TABLE, value)
}

/** The period a metric belongs to (each name belongs to exactly one), or undefined for an unknown name. */
export function periodOf(name: string): MetricPeriod | undefined {
  return METRIC_PERIODS.find((p) => (METRIC_TABLE[p] as readonly string[]).includes(name))
}

export interface MetricRequestPlan {
  /** The names to compute for each period asked, in the order asked. */
  byPeriod: Partial<Record<MetricPeriod, string[]>>
}

export interface MetricProblem {
  /** What is wrong, first and short: "Metric eventsRescue is a daily metric, not monthly". */
  message: string
  /** the period whose valid names `validNamesText` lists */
  period?: MetricPeriod
  /** The period the name belongs to, when it belongs to one: what to ask instead. */
  ownPeriod?: MetricPeriod
  validNames?: readonly string[]
}

/** "valid names for weekly: adherencePercent" (the sandbox's answer carries it after the message). */
export function validNamesText(problem: MetricProblem): string | undefined {
  return problem.period && problem.validNames ? `valid names for ${problem.period}: ${problem.validNames.join(', ')}` : undefined
}

/**
 * Pairs names with periods. Without periods, each name goes to its own period. With periods,
 * every name must belong to one of them and every period must get at least one name; anything
 * else is an unsupported combination (spec section 7 rule 1), described with the valid names.
 */
export function planMetricRequest(names: readonly string[], periods: readonly string[] = []): MetricProblem | MetricRequestPlan {
  if (names.length === 0) return {message: 'At least one metric name is required'}
  for (const p of periods) {
    if (!isPeriod(p)) return {message: `Unknown period ${p}; periods: ${METRIC_PERIODS.join(', ')}`}
  }

  const asked = periods.length > 0 ? [...new Set(periods as MetricPeriod[])] : undefined
  const byPeriod: Partial<Record<MetricPeriod, string[]>> = {}
  for (const name of names) {
    const own = periodOf(name)
    if (asked && (!own || !asked.includes(own))) {
      const period = asked[0]
      const which = asked.join(' or ')
      return {
        message: own ? `Metric ${name} is a ${own} metric, not ${which}` : `Metric ${name} is not a ${which} metric`,
        ownPeriod: own,
        period,
        validNames: METRIC_TABLE[period],
      }
    }

    if (!own) return {message: `Unknown metric ${name}: it is in no period of the supported table`}
    byPeriod[own] ??= []
    if (!byPeriod[own].includes(name)) byPeriod[own].push(name)
  }

  for (const p of asked ?? []) {
    if (!byPeriod[p]) {
      return {
        message: `No metric asked for period ${p}`,
        period: p,
        validNames: METRIC_TABLE[p],
      }
    }
  }

  return {byPeriod}
}

export function isMetricProblem(value: MetricProblem | MetricRequestPlan): value is MetricProblem {
  return 'message' in value
}
