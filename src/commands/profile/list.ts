import {BaseCommand} from '../../cli/base-command.js'
import {localFlags} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {profileView} from '../../profiles/display.js'

export default class ProfileList extends BaseCommand<typeof ProfileList> {
  static override baseFlags = localFlags
  static override description = 'List profiles, secrets masked; settings overridden by OPSCTL_* variables show as an "env" row'
  static override examples = ['<%= config.bin %> profile list', '<%= config.bin %> profile list --json']

  static override view: View = {columns: ['name', 'active', 'env', 'healthUrl', 'checkoutUrl', 'publicKey', 'secretKey', 'session'], list: 'profiles'}

  async run(): Promise<{profiles: Record<string, unknown>[]; path: string}> {
    const store = await this.profileStore()
    const profiles = store.names().map((n) => profileView(n, store.require(n), n === store.activeName))
    // The listing works even when the profile in use does not resolve (none active, OPSCTL_PROFILE misspelt).
    const resolved = await this.profile().catch((error: Error) => {
      this.note(`Note: ${error.message}`)
    })
    if (resolved && resolved.fromEnv.length > 0) {
      profiles.push(profileView(`${resolved.name} (+env)`, resolved.profile, false, resolved.fromEnv.join(',')))
    }

    return {path: store.path, profiles}
  }
}
