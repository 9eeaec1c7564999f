import * as Flags from '@oclif/core/flags'

import {HealthCommand, healthFlags, userIdArg} from '../../../cli/health/command.js'
import {planMedicationBody, planMedicationFlags} from '../../../cli/health/plan.js'
import {checkRequestBody} from '../../../cli/request-body.js'
import {UsageError} from '../../../errors.js'
import {healthOps} from '../../../services/health/operations.js'

export default class PlanMedicationAdd extends HealthCommand<typeof PlanMedicationAdd> {
  static override args = {userId: userIdArg}
  static override description = `Add a medication to a user's plan, with its schedule and sensors.

Give the fields as flags, or the whole medication with --data (flags override its fields). A sensor MAC already attached to another medication is refused by the service.`
  static override examples = [
    '<%= config.bin %> plan medication add me --medication-id med-fluticasone \\\n  --usage 08:00=2 --usage 20:00=2',
    '<%= config.bin %> plan medication add me --medication-id med-salbutamol \\\n  --sensor AA:BB:CC:DD:EE:01=hfa-sensor',
    '<%= config.bin %> plan medication add me --data @examples/medication.json',
  ]
  static override flags = {
    ...healthFlags,
    ...planMedicationFlags,
    'medication-id': Flags.string({description: 'medication id (from the group configuration)'}),
  }

  protected async execute(): Promise<Record<string, unknown>> {
    const body = await planMedicationBody(this.flags, this.flags['medication-id'])
    if (body.medicationId === undefined) throw new UsageError('Missing --medication-id (or medicationId in --data)')
    checkRequestBody(healthOps.addPlanMedication, body)
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    await client.call(healthOps.addPlanMedication, {params: {userId}, body})
    const result = {added: body.medicationId, userId, ...body}
    return result
  }
}
