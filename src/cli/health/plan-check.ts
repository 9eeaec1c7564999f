/**
 * `events add/update`: the event's medication checked against the user's plan before the write
 * (the rule is src/services/health/plan-check.ts; the words are here). `--no-plan-check` skips
 * the read; `--dry-run` says what the check would read and sends nothing.
 */
import * as Flags from '@oclif/core/flags'

import type {ServiceClient} from '../../http/client.js'

import {UsageError} from '../../errors.js'
import {type Event, healthOps} from '../../services/health/operations.js'
import {checkEventAgainstPlan, needsPlanCheck, type PlanCheck, type PlanEntry} from '../../services/health/plan-check.js'

export const planCheckFlags = {
  'plan-check': Flags.boolean({
    allowNo: true,
    default: true,
    description: "check the medication id and type against the user's plan before writing (one read); --no-plan-check skips it",
  }),
}

export interface PlanCheckRequest {
  client: ServiceClient
  userId: string
  body: Record<string, unknown>
  /** updateEvent: the event changed, whose stored medication counts where the body leaves it out. */
  eventId?: string
  enabled: boolean
  dryRun: boolean
  note(text: string): void
}

function planText(plan: readonly PlanEntry[]): string {
  if (plan.length === 0) return 'the plan has no medications'
  return `the plan has ${plan.map((m) => (m.medicationType ? `${m.medicationId} (${m.medicationType})` : m.medicationId)).join(', ')}`
}

export function planRefusal(check: Exclude<PlanCheck, {ok: true}>, userId: string): UsageError {
  const what =
    check.problem === 'not-on-plan'
      ? `Medication ${check.medicationId} is not on the plan of user ${userId}`
      : `Medication ${check.medicationId} is a ${check.expectedType} medication on the plan of user ${userId}, not ${check.medicationType}`
  return new UsageError(`${what}: ${planText(check.plan)}; the event was not sent`, [
    'Record it anyway (not checked against the plan): add --no-plan-check',
  ]).withNext({step: 'plan-show', userId})
}

/** Reads the plan (and, for an update, the event) and refuses a medication the plan does not have, before the write is sent. */
export async function checkPlan(request: PlanCheckRequest): Promise<void> {
  const {body, client, dryRun, enabled, eventId, note, userId} = request
  if (!needsPlanCheck(body)) return
  if (!enabled) {
    if (dryRun) note('Plan check: skipped (--no-plan-check)')
    return
  }

  if (dryRun) {
    const reads = [`GET /api/users/${userId}`, ...(eventId === undefined ? [] : [`GET /api/users/${userId}/events/${eventId}`])]
    note(`Plan check: would read ${reads.join(' and ')} and refuse a medication or type not on the plan (a dry run sends neither)`)
    return
  }

  const [user, event] = await Promise.all([
    client.call(healthOps.getUserById, {params: {userId}}).then((r) => r.data),
    eventId === undefined ? undefined : client.call(healthOps.getEventById, {params: {userId, eventId}}).then((r): Event => r.data),
  ])
  const medicationId = (body.medicationId as string | undefined) ?? event?.medicationId
  if (medicationId === undefined) return
  const medicationType = (body.medicationType as string | undefined) ?? event?.medicationType
  const check = checkEventAgainstPlan({medicationId, medicationType}, user.plan?.medications ?? [])
  if (!check.ok) throw planRefusal(check, userId)
}
