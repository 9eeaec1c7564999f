import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/base-command.js'
import {profileView} from '../../lib/profiles/display.js'

export default class ProfileShow extends BaseCommand<typeof ProfileShow> {
  static override args = {name: Args.string({description: 'profile name (default: the one in use)'})}
  static override description = 'Show one profile as it resolves (environment overrides applied), secrets masked'
  static override examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show prod --json']

  async run(): Promise<Record<string, unknown>> {
    const resolved = await this.profile()
    const {store} = resolved
    const view = this.args.name
      ? profileView(this.args.name, store.require(this.args.name), this.args.name === store.activeName)
      : profileView(
          resolved.name,
          resolved.profile,
          resolved.name === store.activeName,
          resolved.fromEnv.length > 0 ? `file+env(${resolved.fromEnv.join(',')})` : 'file',
        )
    await this.print(view)
    return view
  }
}
