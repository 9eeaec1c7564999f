import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {eventBodyFromFlags, eventFlags} from '../../cli/health/events.js'
import {checkPlan, planCheckFlags} from '../../cli/health/plan-check.js'
import {idArg} from '../../cli/input-text.js'
import {checkRequestBody} from '../../cli/request-body.js'
import {UsageError} from '../../errors.js'
import {healthOps} from '../../services/health/operations.js'

export default class EventsUpdate extends HealthCommand<typeof EventsUpdate> {
  static override args = {userId: userIdArg, eventId: idArg('event id')}
  static override description = `Change an event: the fields given replace the stored ones.

Give the fields as flags or as --data (flags override its fields). Sending the same update twice leaves the same event.

A change of medication or type is checked against the user's plan first (reading the plan and the event): a medication not on the plan, or another type than the plan's, is refused with exit 2 and nothing is written. --no-plan-check skips the reads.`
  static override examples = [
    '<%= config.bin %> events update me 65f1c0ffee0000000000abcd --doses 2 \\\n  --symptom wheeze --symptom cough',
    '<%= config.bin %> events update me 65f1c0ffee0000000000abcd --no-preemptive \\\n  --address "12 Rizal St" --address-confirmed',
    '<%= config.bin %> events update me 65f1c0ffee0000000000abcd \\\n  --data @examples/changes.json',
  ]
  static override flags = {...healthFlags, ...eventFlags, ...planCheckFlags}

  protected async execute(): Promise<{eventId: string; updated: Record<string, unknown>}> {
    const body = await eventBodyFromFlags(this.flags)
    if (Object.keys(body).length === 0) throw new UsageError('Nothing to update: give at least one field flag or --data')
    checkRequestBody(healthOps.updateEvent, body)
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    const {eventId} = this.args
    await checkPlan({body, client, dryRun: this.dryRun, enabled: this.flags['plan-check'], eventId, note: (t) => this.note(t), userId})
    await client.call(healthOps.updateEvent, {params: {userId, eventId: this.args.eventId}, body})
    const result = {eventId: this.args.eventId, updated: body}
    return result
  }
}
