import {PLAN_COLUMNS} from '../../cli/health/columns.js'
import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {reasonFlags} from '../../cli/health/reason-flag.js'
import {planRows} from '../../cli/health/support-view.js'
import {type View} from '../../cli/output/view.js'
import {healthOps, type PlanMedication} from '../../services/health/operations.js'

export default class PlanShow extends HealthCommand<typeof PlanShow> {
  static override args = {userId: userIdArg}
  static override description = `Show a user's plan: each medication with its type, scheduled usage and sensors (read from the user, getUserById).

A caregiver linked to the patient may read it. --json gives {userId, medications}.`
  static override examples = ['<%= config.bin %> plan show me', '<%= config.bin %> plan show 65f1c0ffee00000000000001 --json']
  static override flags = {...healthFlags, ...reasonFlags}

  static override view: View = {
    columns: PLAN_COLUMNS,
    list: 'medications',
    rows: (document) => planRows((document as {medications: PlanMedication[]}).medications),
  }

  protected async execute(): Promise<{medications: PlanMedication[]; userId: string}> {
    const client = await this.health()
    const userId = await this.readUserId(this.args.userId, client)
    const {data} = await client.call(healthOps.getUserById, {params: {userId}})
    const result = {userId: data.id, medications: data.plan?.medications ?? []}
    return result
  }
}
