import {BaseCommand} from '../../cli/base-command.js'
import {localFlags} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {profileView} from '../../profiles/display.js'

export default class ProfileList extends BaseCommand<typeof ProfileList> {
  static override baseFlags = localFlags
  static override description = 'List profiles, secrets masked; settings overridden by OPSCTL_* variables show as an "env" row'
  static override examples = ['<%= config.bin %> profile list', '<%= config.bin %> profile list --json']

  static override view: View = {
    columns: ['name', 'active', 'env', 'healthUrl', 'checkoutUrl', 'publicKey', 'secretKey', 'session'],
    // The name (`--profile` takes it) and where it points; the credentials' state goes first.
    layout: {
      active: {priority: 1},
      checkoutUrl: {priority: 2},
      env: {priority: 2},
      healthUrl: {priority: 1},
      name: {kind: 'id', priority: 1},
      publicKey: {priority: 3},
      secretKey: {priority: 3},
      session: {priority: 3},
    },
    list: 'profiles',
  }

  protected async execute(): Promise<{profiles: Record<string, unknown>[]; path: string}> {
    const store = await this.profileStore()
    // The listing works even when the profile in use does not resolve (none active, OPSCTL_PROFILE misspelt).
    const resolved = await this.profile().catch((error: Error) => {
      this.note(`Note: ${error.message}`)
    })
    // "active" marks the row commands use now: --profile or OPSCTL_PROFILE over the file's choice,
    // and the "(+env)" row when OPSCTL_* variables override some of that profile's settings.
    const inUse = resolved ? resolved.name : store.activeName
    const overridden = resolved !== undefined && resolved.fromEnv.length > 0
    const profiles = store.names().map((n) => profileView(n, store.require(n), n === inUse && !overridden))
    if (resolved && overridden) {
      profiles.push(profileView(`${resolved.name} (+env)`, resolved.profile, true, resolved.fromEnv.join(',')))
    }

    return {path: store.path, profiles}
  }
}
