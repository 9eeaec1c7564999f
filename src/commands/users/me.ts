import {HealthCommand, healthFlags, USER_VIEW} from '../../cli/health/command.js'
import {healthOps, type User} from '../../services/health/operations.js'

export default class UsersMe extends HealthCommand<typeof UsersMe> {
  static override description = 'Show the signed-in user, plan included under --json'
  static override examples = [
    '<%= config.bin %> users me',
    '<%= config.bin %> users me --json',
    '<%= config.bin %> users me --language fil-PH --verbose',
  ]
  static override flags = {...healthFlags}

  static override view = USER_VIEW

  async run(): Promise<User> {
    const client = await this.health()
    const {data} = await client.call(healthOps.getUser)
    return data
  }
}
