import {BaseCommand} from '../../cli/base-command.js'
import {localFlags} from '../../cli/flags.js'
import {ENV} from '../../profiles/resolve.js'

export default class UsersLogout extends BaseCommand<typeof UsersLogout> {
  static override baseFlags = localFlags
  static override description = `Forget the health session stored in the profile (and its user id).

The service has no sign-out operation: the session stays valid on the server until it expires.`
  static override examples = ['<%= config.bin %> users logout', '<%= config.bin %> users logout -p staging']

  protected async execute(): Promise<{hadSession: boolean; loggedOut: boolean; profile: string}> {
    const r = await this.profile()
    const had = Boolean(r.store.get(r.name)?.health.session)
    r.store.update(r.name, (p) => ({...p, health: {...p.health, session: undefined, userId: undefined}}))
    await r.store.save()
    if (r.fromEnv.includes(ENV.healthSession)) this.note(`Note: ${ENV.healthSession} is still set and still supplies a session`)
    const result = {loggedOut: true, hadSession: had, profile: r.name}
    this.note(had ? `Session removed from profile ${r.name}` : `Profile ${r.name} had no stored session`)
    return result
  }
}
