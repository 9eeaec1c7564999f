/**
 * The reads of `users inspect`: the user (plan included), then the period's events and its
 * metrics at the same time, for the same startDate and endDate, so the counts add up to the
 * events listed. What it makes of the answers is ./support.ts.
 */
import type {ServiceClient} from '../../http/client.js'

import {serviceNow} from '../service-clock.js'
import {healthOps} from './operations.js'
import {type Inspection, PERIOD_METRICS, recentDaysStart, summarizePeriod, userAndPlan} from './support.js'

/** A bound of the period, read once the user's zone and the service's now are known. */
export type PeriodBound = (timeZone: string, now: Date) => Date | undefined

export interface InspectPeriod {
  /** Default: the last RECENT_DAYS days in the user's zone, today included, by the service's clock. */
  since?: PeriodBound
  /** Default: the service's now. */
  until?: PeriodBound
  /** How many of the period's newest events to keep (one page: at most 50). */
  events: number
}

/** The inspection, and whether the period holds more events than kept. */
export async function inspectUser(client: Pick<ServiceClient, 'call'>, userId: string, period: InspectPeriod): Promise<{inspection: Inspection; more: boolean}> {
  const {data: document, headers} = await client.call(healthOps.getUserById, {params: {userId}})
  const {plan, user} = userAndPlan(document)
  const timeZone = user.timeZone ?? 'UTC'
  // The service's clock decides "today" and "7d ago" (a sandbox clock may have been moved).
  const now = serviceNow(headers)
  const startDate = (period.since?.(timeZone, now) ?? recentDaysStart(now, timeZone)).toISOString()
  // Without an end the service's own now is used.
  const endDate = period.until?.(timeZone, now)?.toISOString()
  const range = {startDate, ...(endDate ? {endDate} : {})}
  const [events, metrics] = await Promise.all([
    period.events === 0
      ? {list: [], more: false}
      : client.call(healthOps.getEvents, {params: {userId: user.id}, query: range}).then(({data}) => ({
          list: data.events.slice(0, period.events),
          more: data.events.length > period.events || Boolean(data.paging?.next),
        })),
    client
      .call(healthOps.getMetrics, {params: {userId: user.id}, query: {name: [...PERIOD_METRICS], period: ['daily'], ...range}})
      .then(({data}) => summarizePeriod(data, {endDate: endDate ?? data.endDate ?? now.toISOString(), startDate, timeZone})),
  ])
  return {inspection: {user, plan, events: events.list, metrics}, more: events.more}
}
