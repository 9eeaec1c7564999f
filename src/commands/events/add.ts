import {EVENT_COLUMNS} from '../../cli/health/columns.js'
import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {eventBodyFromFlags, eventFlags} from '../../cli/health/events.js'
import {checkPlan, planCheckFlags} from '../../cli/health/plan-check.js'
import {fieldsOf, type View} from '../../cli/output/view.js'
import {checkRequestBody} from '../../cli/request-body.js'
import {Event, healthOps} from '../../services/health/operations.js'

export default class EventsAdd extends HealthCommand<typeof EventsAdd> {
  static override args = {userId: userIdArg}
  static override description = `Record a manual event for a user.

Give the fields as flags, or the whole event with --data (flags override its fields). The date defaults to now; the service derives nightEvent (22:00-06:00 in the user's time zone).

The medication is checked against the user's plan first (one read): a medication not on the plan, or recorded with another type than the plan's, is refused with exit 2 and nothing is written. --no-plan-check skips the read.`
  static override examples = [
    '<%= config.bin %> events add me --medication-id med-salbutamol \\\n  --medication-type rescue --symptom cough --trigger coldAir',
    '<%= config.bin %> events add me --date 2026-03-01T23:30:00+08:00 \\\n  --medication-id med-salbutamol --medication-type rescue --doses 2',
    '<%= config.bin %> events add me --data @examples/event.json',
    'cat event.json | <%= config.bin %> events add me --data -',
    '<%= config.bin %> events add me --data @examples/trial-event.json --no-plan-check',
  ]
  static override flags = {...healthFlags, ...eventFlags, ...planCheckFlags}

  static override view: View = {columns: EVENT_COLUMNS, fields: fieldsOf(Event)}

  protected async execute(): Promise<Event> {
    const body = await eventBodyFromFlags(this.flags, {defaultDate: new Date().toISOString()})
    checkRequestBody(healthOps.addEvent, body)
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    await checkPlan({body, client, dryRun: this.dryRun, enabled: this.flags['plan-check'], note: (t) => this.note(t), userId})
    const {data} = await client.call(healthOps.addEvent, {params: {userId}, body})
    return data
  }
}
