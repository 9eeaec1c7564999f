/**
 * The reads of `users inspect`: the user (plan included), then the period's events and its
 * metrics at the same time, for the same startDate and endDate, so the counts add up to the
 * events listed. What it makes of the answers is ./support.ts.
 */
import type {ServiceClient} from '../../http/client.js'

import {healthOps} from './operations.js'
import {type Inspection, monthStart, PERIOD_METRICS, summarizePeriod, userAndPlan} from './support.js'

export interface InspectPeriod {
  /** Default: the first instant of `now`'s month in the user's time zone. */
  since?: (timeZone: string) => Date | undefined
  /** Default: the service's now. */
  until?: (timeZone: string) => Date | undefined
  /** How many of the period's newest events to keep (one page: at most 50). */
  events: number
  now: Date
}

/** The inspection, and whether the period holds more events than kept. */
export async function inspectUser(client: Pick<ServiceClient, 'call'>, userId: string, period: InspectPeriod): Promise<{inspection: Inspection; more: boolean}> {
  const {data: document} = await client.call(healthOps.getUserById, {params: {userId}})
  const {plan, user} = userAndPlan(document)
  const timeZone = user.timeZone ?? 'UTC'
  const startDate = (period.since?.(timeZone) ?? monthStart(period.now, timeZone)).toISOString()
  // Without an end the service's own now is used (a sandbox clock may have moved it).
  const endDate = period.until?.(timeZone)?.toISOString()
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
      .then(({data}) => summarizePeriod(data, {endDate: endDate ?? data.endDate ?? period.now.toISOString(), startDate, timeZone})),
  ])
  return {inspection: {user, plan, events: events.list, metrics}, more: events.more}
}
