import * as Flags from '@oclif/core/flags'

import {HealthCommand, healthFlags, passwordFlags, USER_VIEW} from '../../cli/health/command.js'
import {healthOps, ROLES, type User} from '../../services/health/operations.js'

export default class UsersCreate extends HealthCommand<typeof UsersCreate> {
  static override description = `Create a patient or caregiver account and sign in as it.

The session the service answers with is stored in the profile in use (with the user id, so "me" works in other commands). The password is read from stdin (--password-stdin) or asked hidden in a terminal; it is never printed.`
  static override examples = [
    'printf %s "$PASSWORD" | <%= config.bin %> users create --type patient \\\n  --email ana@example.com --given-name Ana --family-name Cruz \\\n  --password-stdin',
    '<%= config.bin %> users create --type caregiver --email bo@example.com \\\n  --given-name Bo --family-name Lim --time-zone Asia/Manila --language en-PH',
  ]
  static override flags = {
    ...healthFlags,
    ...passwordFlags,
    type: Flags.option({description: 'kind of account', options: ROLES, required: true})(),
    email: Flags.string({description: 'email address (the sign-in name)', required: true}),
    'given-name': Flags.string({description: 'given name', required: true}),
    'family-name': Flags.string({description: 'family name', required: true}),
    'time-zone': Flags.string({description: 'IANA time zone of the user, e.g. Asia/Manila (metrics are computed in it)'}),
  }

  static override view = USER_VIEW

  protected async execute(): Promise<User> {
    const {flags} = this
    const password = await this.readPassword()
    const client = await this.health()
    const body = {
      role: flags.type,
      email: flags.email,
      password,
      givenName: flags['given-name'],
      familyName: flags['family-name'],
      ...(flags.language ? {language: flags.language} : {}),
      ...(flags['time-zone'] ? {timeZone: flags['time-zone']} : {}),
    }
    const {data, headers} = await client.call(healthOps.createUser, {body})
    await this.storeSession(data, headers)
    return data
  }
}
