import {Flags} from '@oclif/core'

import {INSPECT_EVENT_COLUMNS, PLAN_COLUMNS} from '../../cli/health/columns.js'
import {HealthCommand, healthFlags, userOrEmailArg} from '../../cli/health/command.js'
import {reasonFlags} from '../../cli/health/reason-flag.js'
import {eventRows, periodDetail, periodText, planRows, userDetail} from '../../cli/health/support-view.js'
import {type View} from '../../cli/output/view.js'
import {UsageError} from '../../errors.js'
import {healthOps} from '../../services/health/operations.js'
import {INSPECT_EVENTS, type Inspection, monthStart, PERIOD_METRICS, summarizePeriod, userAndPlan} from '../../services/health/support.js'
import {parseTimeInput} from '../../services/time-input.js'

export default class UsersInspect extends HealthCommand<typeof UsersInspect> {
  static override args = {userId: userOrEmailArg}
  static override description = `Show a user on one screen, for support: who they are, their plan (medications and sensors), the period's events (night ones marked) and its key metrics: rescue events (at night too), controller doses taken and prescribed, adherence.

The period is this month (from the first day of the month in the user's time zone) unless --since and --until say otherwise; a date such as 2026-11-21 is midnight in the user's time zone. The user is an id, "me" or an email, looked up among the users the signed-in user may read (themself and a caregiver's linked patients). It only reads (getUserById, then getEvents and getMetrics together). Inspecting another user is written to the access log (opsctl audit access) with --reason, which a production profile requires (asked in a terminal). --json gives one document: {user, plan, events, metrics}.`
  static override examples = [
    '<%= config.bin %> users inspect me',
    '<%= config.bin %> users inspect patient@demo-clinic.test --since 7d',
    '<%= config.bin %> users inspect 65f1c0ffee00000000000001 --since 2026-11-01 \\\n  --until 2026-11-08 --events 20',
    '<%= config.bin %> users inspect 65f1c0ffee00000000000001 --reason "ticket 4512" --json',
  ]
  static override flags = {
    ...healthFlags,
    ...reasonFlags,
    events: Flags.integer({default: INSPECT_EVENTS, description: "how many of the period's newest events to show (one page: at most 50)", max: 50, min: 0}),
    since: Flags.string({description: 'start of the period: a date (midnight in the user\'s zone), an ISO 8601 time, a duration back from now (7d), today or yesterday (default: the first day of this month)'}),
    until: Flags.string({description: 'end of the period, in the same forms (default: now)'}),
  }
  static override view: View = {parts: ['user', 'plan', 'events', 'metrics']}

  async run(): Promise<Inspection> {
    const {flags} = this
    const now = new Date()
    // Checked before anything is sent; read again below in the user's time zone.
    const period = (zone?: string) => ({
      since: flags.since === undefined ? undefined : parseTimeInput(flags.since, '--since', {dateZone: zone, now, zone}),
      until: flags.until === undefined ? undefined : parseTimeInput(flags.until, '--until', {dateZone: zone, now, zone}),
    })
    const typed = period()
    if (typed.since && typed.until && typed.since >= typed.until) throw new UsageError('--since must be before --until; nothing was sent')
    const client = await this.health()
    const userId = await this.readUserId(this.args.userId, client, {email: true})
    const {data: document} = await client.call(healthOps.getUserById, {params: {userId}})
    const {plan, user} = userAndPlan(document)
    const timeZone = user.timeZone ?? 'UTC'
    const {since, until} = period(timeZone)
    const startDate = (since ?? monthStart(now, timeZone)).toISOString()
    // Without --until the end is left to the service (its own "now", which a sandbox clock may have moved).
    const endDate = until?.toISOString()
    const range = {startDate, ...(endDate ? {endDate} : {})}
    const [events, metrics] = await Promise.all([
      flags.events === 0
        ? {list: [], more: false}
        : client.call(healthOps.getEvents, {params: {userId: user.id}, query: range}).then(({data}) => ({
            list: data.events.slice(0, flags.events),
            more: data.events.length > flags.events || Boolean(data.paging?.next),
          })),
      client
        .call(healthOps.getMetrics, {params: {userId: user.id}, query: {name: [...PERIOD_METRICS], period: ['daily'], ...range}})
        .then(({data}) => summarizePeriod(data, {endDate: endDate ?? data.endDate ?? now.toISOString(), startDate, timeZone})),
    ])
    const inspection: Inspection = {user, plan, events: events.list, metrics}
    if (!this.documentWanted) {
      await this.show(inspection, events.more)
      this.markShown()
    }

    return inspection
  }

  private async show({events, metrics, plan, user}: Inspection, more: boolean): Promise<void> {
    const heading = (title: string) => process.stdout.write(`\n${title}\n`)
    await this.renderPart(userDetail(user), {})
    heading(`Plan (${plan.medications.length} medications)`)
    await this.renderPart(planRows(plan.medications), {columns: PLAN_COLUMNS})
    heading(`Period: ${periodText(metrics)}`)
    await this.renderPart(periodDetail(metrics), {})
    heading(more ? `Events (the newest ${events.length}; more with --events N)` : `Events (${events.length}, newest first)`)
    await this.renderPart(eventRows(events, user.timeZone), {columns: INSPECT_EVENT_COLUMNS})
  }
}
