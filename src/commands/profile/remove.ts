import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {localFlags, yesFlag} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {askConfirm, isInteractive} from '../../cli/prompt.js'
import {UsageError} from '../../errors.js'
import {parseProfileName} from '../../profiles/name-arg.js'

export default class ProfileRemove extends BaseCommand<typeof ProfileRemove> {
  static override baseFlags = {...localFlags, ...yesFlag}
  static override aliases = ['profile rm']
  static override args = {name: Args.string({description: 'profile name', parse: parseProfileName, required: true})}
  static override description = 'Remove a profile and the credentials it holds'
  static override examples = ['<%= config.bin %> profile remove old --yes']

  /** What changed is said on stderr; the document is printed only when asked for (--json, -o json). */
  static override view: View = {quiet: true}

  protected async execute(): Promise<{removed: string; active: null | string}> {
    const store = await this.profileStore()
    store.require(this.args.name)
    if (!this.flags.yes) {
      if (!isInteractive()) throw new UsageError(`Removing profile ${this.args.name} needs confirmation; pass --yes`)
      if (!(await askConfirm(`Remove profile ${this.args.name} and its credentials?`)))
        throw new UsageError('Not confirmed; nothing was removed')
    }

    store.remove(this.args.name)
    await store.save()
    this.note(`Removed profile ${this.args.name}`)
    if (!store.activeName) this.note('No profile is active now; choose one: opsctl profile use <name>')
    return {active: store.activeName || null, removed: this.args.name}
  }
}
