import {changeFlags} from '../../../cli/flags.js'
import {HealthCommand, healthFlags, userIdArg} from '../../../cli/health/command.js'
import {idArg} from '../../../cli/input-text.js'
import {healthOps} from '../../../services/health/operations.js'
import {normalizeMac} from '../../../services/health/validate.js'

export default class PlanSensorDelete extends HealthCommand<typeof PlanSensorDelete> {
  static override baseFlags = changeFlags
  static override changes = healthOps.deletePlanSensor
  static override args = {
    userId: userIdArg,
    medicationId: idArg('medication id on the plan', 'medication id'),
    mac: idArg('MAC address of the sensor, AA:BB:CC:DD:EE:FF'),
  }
  static override description = `Detach a sensor from a plan medication.

Asks for confirmation in a terminal; pass --yes elsewhere. It is not retried.`
  static override examples = [
    '<%= config.bin %> plan sensor delete me med-salbutamol AA:BB:CC:DD:EE:01',
    '<%= config.bin %> plan sensor delete me med-salbutamol aa:bb:cc:dd:ee:01 --yes',
  ]
  static override flags = {...healthFlags}

  protected async execute(): Promise<{deleted: string; medicationId: string}> {
    const mac = normalizeMac(this.args.mac)
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    await client.call(healthOps.deletePlanSensor, {
      params: {userId, medicationId: this.args.medicationId, mac},
      confirm: {action: `Detach sensor ${mac} from ${this.args.medicationId}`},
    })
    const result = {deleted: mac, medicationId: this.args.medicationId}
    return result
  }
}
