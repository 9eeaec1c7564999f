/** Flags of the plan commands and the request bodies they make. */
import * as Flags from '@oclif/core/flags'

import {UsageError} from '../../errors.js'
import {parseSensor, parseUsage} from '../../services/health/validate.js'
import {readJsonData} from '../data-input.js'

export const planMedicationFlags = {
  data: Flags.string({char: 'd', description: 'plan medication as JSON: inline, @file.json, or - for stdin (flags override its fields)'}),
  usage: Flags.string({
    description: 'scheduled intake HH:MM=doses, local time (repeatable; replaces the whole usage list)',
    multiple: true,
    multipleNonGreedy: true,
  }),
  sensor: Flags.string({description: 'attached sensor MAC=model (repeatable; replaces the sensor list)', multiple: true, multipleNonGreedy: true}),
}

export interface PlanMedicationFlagValues {
  data?: string
  usage?: string[]
  sensor?: string[]
}

/** Body of addPlanMedication / patchPlanMedication from --data and flags (flags win). */
export async function planMedicationBody(flags: PlanMedicationFlagValues, medicationId?: string): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {}
  if (flags.data !== undefined) {
    const data = await readJsonData(flags.data)
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new UsageError('--data must be a JSON object')
    body = {...(data as Record<string, unknown>)}
  }

  if (medicationId !== undefined) body.medicationId = medicationId
  if (flags.usage) body.usageList = flags.usage.map((u) => parseUsage(u))
  if (flags.sensor) body.sensors = flags.sensor.map((s) => parseSensor(s))
  return body
}
