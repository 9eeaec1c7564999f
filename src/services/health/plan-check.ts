/**
 * The rule behind `events add/update`: an event names a medication of the user's plan, with that
 * medication's type. Pure: it returns facts, the CLI words them (src/cli/health/plan-check.ts).
 */
import type {PlanMedication} from './operations.js'

/** A plan medication as the check names it: its id and, when the plan says it, its type. */
export interface PlanEntry {
  medicationId: string
  medicationType?: string
}

export type PlanCheck =
  | {ok: true}
  | {ok: false; problem: 'not-on-plan'; medicationId: string; plan: PlanEntry[]}
  | {ok: false; problem: 'wrong-type'; medicationId: string; medicationType: string; expectedType: string; plan: PlanEntry[]}

export function planEntries(medications: readonly PlanMedication[]): PlanEntry[] {
  return medications.map((m) => ({
    medicationId: m.medicationId,
    ...(typeof m.medicationType === 'string' ? {medicationType: m.medicationType} : {}),
  }))
}

/**
 * Checks the medication of an event against the plan. A plan medication whose type the service
 * does not say is checked by id only.
 */
export function checkEventAgainstPlan(event: {medicationId: string; medicationType?: string}, medications: readonly PlanMedication[]): PlanCheck {
  const plan = planEntries(medications)
  const entry = plan.find((m) => m.medicationId === event.medicationId)
  if (!entry) return {ok: false, problem: 'not-on-plan', medicationId: event.medicationId, plan}
  if (event.medicationType !== undefined && entry.medicationType !== undefined && entry.medicationType !== event.medicationType) {
    return {
      ok: false,
      problem: 'wrong-type',
      medicationId: event.medicationId,
      medicationType: event.medicationType,
      expectedType: entry.medicationType,
      plan,
    }
  }

  return {ok: true}
}

/** Whether an event body touches what the plan decides (its medication or that medication's type). */
export function needsPlanCheck(body: Record<string, unknown>): boolean {
  return body.medicationId !== undefined || body.medicationType !== undefined
}
