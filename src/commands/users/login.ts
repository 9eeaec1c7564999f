import * as Flags from '@oclif/core/flags'

import {HealthCommand, healthFlags, passwordFlags, USER_VIEW} from '../../cli/health/command.js'
import {askText} from '../../cli/prompt.js'
import {healthOps, type User} from '../../services/health/operations.js'

export default class UsersLogin extends HealthCommand<typeof UsersLogin> {
  static override description = `Sign in to the health service and store the session in the profile.

The password is read from stdin (--password-stdin) or asked hidden in a terminal; it is never printed. Sign in again the same way when a command says the session expired.`
  static override examples = [
    '<%= config.bin %> users login --email ana@example.com',
    'printf %s "$PASSWORD" | <%= config.bin %> users login --email ana@example.com \\\n  --password-stdin',
    'printf %s "$PASSWORD" | <%= config.bin %> users login -p staging \\\n  --email ana@example.com --password-stdin',
  ]
  static override flags = {
    ...healthFlags,
    ...passwordFlags,
    email: Flags.string({description: 'email address of the account'}),
  }

  static override view = USER_VIEW

  protected async execute(): Promise<User> {
    const email = this.flags.email ?? (await askText('Email', '--email'))
    const password = await this.readPassword()
    const client = await this.health()
    const {data, headers} = await client.call(healthOps.signIn, {body: {email, password}})
    await this.storeSession(data, headers)
    return data
  }
}
