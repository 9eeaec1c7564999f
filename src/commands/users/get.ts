import {HealthCommand, healthFlags, USER_VIEW, userIdArg} from '../../cli/health/command.js'
import {healthOps, type User} from '../../services/health/operations.js'

export default class UsersGet extends HealthCommand<typeof UsersGet> {
  static override args = {userId: userIdArg}
  static override description = 'Show a user by id; "me" is the signed-in user'
  static override examples = ['<%= config.bin %> users get 65f1c0ffee00000000000001', '<%= config.bin %> users get me --json']
  static override flags = {...healthFlags}

  static override view = USER_VIEW

  async run(): Promise<User> {
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    const {data} = await client.call(healthOps.getUserById, {params: {userId}})
    return data
  }
}
