import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {localFlags} from '../../cli/flags.js'
import {profileView} from '../../profiles/display.js'
import {parseProfileName} from '../../profiles/name-arg.js'
import {resolveProfile} from '../../profiles/resolve.js'

export default class ProfileShow extends BaseCommand<typeof ProfileShow> {
  static override baseFlags = localFlags
  static override args = {name: Args.string({description: 'profile name (default: the one in use)', parse: parseProfileName})}
  static override description = 'Show one profile as it resolves (environment overrides applied), secrets masked'
  static override examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show prod --json']

  protected async execute(): Promise<Record<string, unknown>> {
    const store = await this.profileStore()
    // A named profile resolves as it would with --profile <name>: the OPSCTL_* overrides apply to it too.
    const resolved = this.args.name === undefined ? await this.profile() : await resolveProfile(store, this.args.name)
    const view = profileView(
      resolved.name,
      resolved.profile,
      resolved.name === store.activeName,
      resolved.fromEnv.length > 0 ? `file+env(${resolved.fromEnv.join(',')})` : 'file',
    )
    return view
  }
}
