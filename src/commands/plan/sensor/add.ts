import * as Flags from '@oclif/core/flags'

import {HealthCommand, healthFlags, userIdArg} from '../../../cli/health/command.js'
import {idArg} from '../../../cli/input-text.js'
import {checkRequestBody} from '../../../cli/request-body.js'
import {healthOps} from '../../../services/health/operations.js'
import {normalizeMac} from '../../../services/health/validate.js'
import {parseTimeInput} from '../../../services/time-input.js'

export default class PlanSensorAdd extends HealthCommand<typeof PlanSensorAdd> {
  static override args = {userId: userIdArg, medicationId: idArg('medication id on the plan', 'medication id')}
  static override description = `Attach a sensor to a plan medication.

The MAC is checked before sending (six hex pairs; lower case and "-" are normalised to AA:BB:CC:DD:EE:FF). A MAC already on another medication is refused by the service.`
  static override examples = [
    '<%= config.bin %> plan sensor add me med-salbutamol --mac AA:BB:CC:DD:EE:01 \\\n  --model hfa-sensor',
    '<%= config.bin %> plan sensor add me med-salbutamol --mac aa-bb-cc-dd-ee-02 \\\n  --model hfa-sensor --battery-level 80',
  ]
  static override flags = {
    ...healthFlags,
    mac: Flags.string({description: 'MAC address of the sensor, AA:BB:CC:DD:EE:FF', required: true}),
    model: Flags.string({default: 'generic', description: 'sensor model'}),
    'battery-level': Flags.integer({description: 'battery level, percent', max: 100, min: 0}),
    'first-sync-date': Flags.string({description: 'first sync: ISO 8601, a duration ago (3d) or now'}),
    'last-sync-date': Flags.string({description: 'last sync: ISO 8601, a duration ago (2h) or now'}),
  }

  protected async execute(): Promise<Record<string, unknown>> {
    const {flags} = this
    const body = {
      mac: normalizeMac(flags.mac),
      model: flags.model,
      ...(flags['battery-level'] === undefined ? {} : {batteryLevel: flags['battery-level']}),
      ...(flags['first-sync-date'] === undefined ? {} : {firstSyncDate: parseTimeInput(flags['first-sync-date'], 'firstSyncDate').toISOString()}),
      ...(flags['last-sync-date'] === undefined ? {} : {lastSyncDate: parseTimeInput(flags['last-sync-date'], 'lastSyncDate').toISOString()}),
    }
    checkRequestBody(healthOps.addPlanSensor, body)
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    await client.call(healthOps.addPlanSensor, {params: {userId, medicationId: this.args.medicationId}, body})
    const result = {added: body.mac, medicationId: this.args.medicationId, ...body}
    return result
  }
}
