import {HealthCommand, healthFlags, userIdArg} from '../../../cli/health/command.js'
import {planMedicationBody, planMedicationFlags} from '../../../cli/health/plan.js'
import {idArg} from '../../../cli/input-text.js'
import {checkRequestBody} from '../../../cli/request-body.js'
import {UsageError} from '../../../errors.js'
import {healthOps} from '../../../services/health/operations.js'

export default class PlanMedicationUpdate extends HealthCommand<typeof PlanMedicationUpdate> {
  static override args = {userId: userIdArg, medicationId: idArg('medication id on the plan', 'medication id')}
  static override description = `Change a plan medication: the lists given replace the stored ones.

Give the usage list and sensors as flags or as --data (flags override its fields).`
  static override examples = [
    '<%= config.bin %> plan medication update me med-fluticasone --usage 07:30=1 \\\n  --usage 19:30=1',
    '<%= config.bin %> plan medication update me med-fluticasone \\\n  --data \'{"usageList":[{"hour":9,"minute":0,"doses":2}]}\'',
  ]
  static override flags = {...healthFlags, ...planMedicationFlags}

  protected async execute(): Promise<Record<string, unknown>> {
    const body = await planMedicationBody(this.flags)
    if (Object.keys(body).length === 0) throw new UsageError('Nothing to change: give --usage, --sensor or --data')
    checkRequestBody(healthOps.patchPlanMedication, body)
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    await client.call(healthOps.patchPlanMedication, {params: {userId, medicationId: this.args.medicationId}, body})
    const result = {updated: this.args.medicationId, userId, ...body}
    return result
  }
}
