import {Flags} from '@oclif/core'

import {INSPECT_EVENT_COLUMNS, PLAN_COLUMNS} from '../../cli/health/columns.js'
import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {eventRows, monthDetail, planRows, userDetail} from '../../cli/health/support-view.js'
import {type View} from '../../cli/output/view.js'
import {healthOps} from '../../services/health/operations.js'
import {INSPECT_EVENTS, type Inspection, MONTH_METRICS, monthStart, summarizeMonth, userAndPlan} from '../../services/health/support.js'

export default class UsersInspect extends HealthCommand<typeof UsersInspect> {
  static override args = {userId: userIdArg}
  static override description = `Show a user on one screen, for support: who they are, their plan (medications and sensors), their newest events and this month's key metrics.

It only reads (getUserById, then getEvents and getMetrics together). A caregiver linked to the patient may inspect them; anyone else gets exit 3, an unknown id exit 4. This month runs from the first day of the month in the user's time zone. --json gives one document: {user, plan, events, metrics}.`
  static override examples = [
    '<%= config.bin %> users inspect me',
    '<%= config.bin %> users inspect 65f1c0ffee00000000000001 --events 20',
    '<%= config.bin %> users inspect 65f1c0ffee00000000000001 --json',
  ]
  static override flags = {
    ...healthFlags,
    events: Flags.integer({default: INSPECT_EVENTS, description: 'how many of the newest events to show (one page: at most 50)', max: 50, min: 0}),
  }
  static override view: View = {parts: ['user', 'plan', 'events', 'metrics']}


  async run(): Promise<Inspection> {
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    const {data: document} = await client.call(healthOps.getUserById, {params: {userId}})
    const {plan, user} = userAndPlan(document)
    const timeZone = user.timeZone ?? 'UTC'
    const now = new Date()
    // The end is left to the service (its own "now", which a sandbox clock may have moved).
    const startDate = monthStart(now, timeZone).toISOString()
    const [events, metrics] = await Promise.all([
      this.flags.events === 0 ? [] : client.call(healthOps.getEvents, {params: {userId: user.id}}).then(({data}) => data.events.slice(0, this.flags.events)),
      client
        .call(healthOps.getMetrics, {params: {userId: user.id}, query: {name: [...MONTH_METRICS], period: ['daily'], startDate}})
        .then(({data}) => summarizeMonth(data, {endDate: data.endDate ?? now.toISOString(), startDate, timeZone})),
    ])
    const inspection: Inspection = {user, plan, events, metrics}
    if (!this.documentWanted) {
      await this.show(inspection)
      this.markShown()
    }

    return inspection
  }

  private async show({events, metrics, plan, user}: Inspection): Promise<void> {
    const heading = (title: string) => process.stdout.write(`\n${title}\n`)
    await this.renderPart(userDetail(user), {})
    heading(`Plan (${plan.medications.length} medications)`)
    await this.renderPart(planRows(plan.medications), {columns: PLAN_COLUMNS})
    heading(`Newest events (${events.length}, ${user.timeZone ?? 'UTC'})`)
    await this.renderPart(eventRows(events, user.timeZone), {columns: INSPECT_EVENT_COLUMNS})
    heading('This month')
    await this.renderPart(monthDetail(metrics), {})
  }
}
