import {changeFlags} from '../../cli/flags.js'
import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {idArg} from '../../cli/input-text.js'
import {healthOps} from '../../services/health/operations.js'

export default class EventsDelete extends HealthCommand<typeof EventsDelete> {
  static override baseFlags = changeFlags
  static override changes = healthOps.deleteEvent
  static override args = {userId: userIdArg, eventId: idArg('event id')}
  static override description = `Delete an event. Asks for confirmation in a terminal; pass --yes elsewhere.

It is not retried: one confirmation, one request.`
  static override examples = [
    '<%= config.bin %> events delete me 65f1c0ffee0000000000abcd',
    '<%= config.bin %> events delete me 65f1c0ffee0000000000abcd --yes',
  ]
  static override flags = {...healthFlags}

  protected async execute(): Promise<{deleted: string}> {
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    await client.call(healthOps.deleteEvent, {params: {userId, eventId: this.args.eventId}})
    const result = {deleted: this.args.eventId}
    return result
  }
}
