import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {localFlags} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {parseProfileName} from '../../profiles/name-arg.js'

export default class ProfileUse extends BaseCommand<typeof ProfileUse> {
  static override baseFlags = localFlags
  static override args = {name: Args.string({description: 'profile name', parse: parseProfileName, required: true})}
  static override description = 'Make a profile the active one'
  static override examples = ['<%= config.bin %> profile use prod']

  /** What changed is said on stderr; the document is printed only when asked for (--json, -o json). */
  static override view: View = {quiet: true}

  protected async execute(): Promise<{active: string}> {
    const store = await this.profileStore()
    store.use(this.args.name)
    await store.save()
    this.note(`Active profile: ${this.args.name}`)
    return {active: this.args.name}
  }
}
