import {HealthCommand, healthFlags, USER_VIEW, userIdArg} from '../../cli/health/command.js'
import {reasonFlags} from '../../cli/health/reason-flag.js'
import {healthOps, type User} from '../../services/health/operations.js'

export default class UsersGet extends HealthCommand<typeof UsersGet> {
  static override args = {userId: userIdArg}
  static override description = `Show a user by id or email; "me" is the signed-in user

An email is looked up among the users the signed-in user may read: themself and, for a caregiver, the linked patients (users me lists them); a miss is exit 4 and says who was searched. Reading another user is written to the access log (opsctl audit access), with --reason, which a production profile requires.`
  static override examples = [
    '<%= config.bin %> users get 65f1c0ffee00000000000001',
    '<%= config.bin %> users get patient@demo-clinic.test',
    '<%= config.bin %> users get me --json',
  ]
  static override flags = {...healthFlags, ...reasonFlags}

  static override view = USER_VIEW

  protected async execute(): Promise<User> {
    const client = await this.health()
    const userId = await this.readUserId(this.args.userId, client)
    const {data} = await client.call(healthOps.getUserById, {params: {userId}})
    return data
  }
}
