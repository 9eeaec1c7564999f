import {changeFlags} from '../../../cli/flags.js'
import {HealthCommand, healthFlags, userIdArg} from '../../../cli/health/command.js'
import {idArg} from '../../../cli/input-text.js'
import {healthOps} from '../../../services/health/operations.js'

export default class PlanMedicationDelete extends HealthCommand<typeof PlanMedicationDelete> {
  static override baseFlags = changeFlags
  static override changes = healthOps.deletePlanMedication
  static override args = {userId: userIdArg, medicationId: idArg('medication id on the plan', 'medication id')}
  static override description = `Remove a medication (and its sensors) from a user's plan.

Asks for confirmation in a terminal; pass --yes elsewhere. It is not retried.`
  static override examples = [
    '<%= config.bin %> plan medication delete me med-fluticasone',
    '<%= config.bin %> plan medication delete me med-fluticasone --yes',
  ]
  static override flags = {...healthFlags}

  protected async execute(): Promise<{deleted: string}> {
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    await client.call(healthOps.deletePlanMedication, {
      params: {userId, medicationId: this.args.medicationId},
      confirm: {action: `Remove medication ${this.args.medicationId} from the plan`},
    })
    const result = {deleted: this.args.medicationId}
    return result
  }
}
