import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {sendFlags} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {parseProfileName} from '../../profiles/name-arg.js'
import {checkCredentials, checkExitCode, type CredentialCheck} from '../../runtime/profile-check.js'

export default class ProfileCheck extends BaseCommand<typeof ProfileCheck> {
  static override args = {name: Args.string({description: 'the profile (default: --profile, OPSCTL_PROFILE or the active one)', parse: parseProfileName})}
  static override baseFlags = sendFlags
  static override description = `Check that a profile's credentials work, changing nothing.

One cheap authenticated read per credential: the health session reads the signed-in user, the checkout secret key lists the webhooks. Each is reported as ok, bad credentials, unreachable or not configured. Exit 0 when all work, 3 when one is refused or missing, 7 when a service cannot be reached.`
  static override examples = ['<%= config.bin %> profile check', '<%= config.bin %> profile check prod --json']

  static override view: View = {columns: ['service', 'credential', 'status', 'detail'], layout: {credential: {kind: 'id'}, detail: {kind: 'reason'}}, list: 'checks'}

  protected async execute(): Promise<{profile: string; checks: CredentialCheck[]}> {
    if (this.args.name) this.flags.profile = this.args.name
    const {name, profile} = await this.profile()
    const checks = await checkCredentials(
      {publicKey: profile.checkout.publicKey, secretKey: profile.checkout.secretKey, session: profile.health.session},
      {checkout: () => this.client('checkout'), health: () => this.client('health')},
    )
    process.exitCode = checkExitCode(checks)
    return {profile: name, checks}
  }
}
