import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {reasonFlags} from '../../cli/health/reason-flag.js'
import {idArg} from '../../cli/input-text.js'
import {fieldsOf, type View} from '../../cli/output/view.js'
import {Event, healthOps} from '../../services/health/operations.js'

export default class EventsGet extends HealthCommand<typeof EventsGet> {
  static override args = {userId: userIdArg, eventId: idArg('event id')}
  static override description = 'Show one event'
  static override examples = [
    '<%= config.bin %> events get me 65f1c0ffee0000000000abcd',
    '<%= config.bin %> events get me 65f1c0ffee0000000000abcd --json',
  ]
  static override flags = {...healthFlags, ...reasonFlags}

  static override view: View = {fields: fieldsOf(Event)}

  protected async execute(): Promise<Event> {
    const client = await this.health()
    const userId = await this.readUserId(this.args.userId, client)
    const {data} = await client.call(healthOps.getEventById, {params: {userId, eventId: this.args.eventId}})
    return data
  }
}
