import {HealthCommand, healthFlags} from '../../cli/health/command.js'
import {idArg} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {type GroupConfig, healthOps} from '../../services/health/operations.js'

export default class GroupsConfig extends HealthCommand<typeof GroupsConfig> {
  static override args = {idOrName: idArg('group id or name')}
  static override description = `Show the configuration of a group, by id or name. No session needed.

The table lists the group's fields, then its medication catalogue.`
  static override examples = [
    '<%= config.bin %> groups config demo-clinic',
    '<%= config.bin %> groups config demo-clinic --json',
    '<%= config.bin %> groups config demo-clinic --language fil-PH --verbose',
  ]
  static override flags = {...healthFlags}

  static override view: View = {list: 'medications', withFields: true}

  protected async execute(): Promise<GroupConfig> {
    const client = await this.health()
    const {data} = await client.call(healthOps.getGroupConfig, {params: {idOrName: this.args.idOrName}})
    return data
  }
}
