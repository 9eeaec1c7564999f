import * as Flags from '@oclif/core/flags'

import {INSPECT_EVENT_COLUMNS, INSPECT_EVENT_LAYOUT, PLAN_COLUMNS} from '../../cli/health/columns.js'
import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {reasonFlags} from '../../cli/health/reason-flag.js'
import {eventRows, periodDetail, periodText, planRows, userDetail} from '../../cli/health/support-view.js'
import {type View} from '../../cli/output/view.js'
import {UsageError} from '../../errors.js'
import {inspectUser, type PeriodBound} from '../../services/health/inspect.js'
import {INSPECT_EVENTS, type Inspection, RECENT_DAYS} from '../../services/health/support.js'
import {parseTimeInput} from '../../services/time-input.js'

export default class UsersInspect extends HealthCommand<typeof UsersInspect> {
  static override args = {userId: userIdArg}
  static override description = `Show a user on one screen, for support: who they are, their plan (medications and sensors), the period's events (night ones marked) and its key metrics: rescue events (at night too), controller doses taken and prescribed, adherence.

The period is the last 7 days, today included: from midnight six days ago in the user's time zone to now, by the service's clock (a sandbox's moved clock too), unless --since and --until say otherwise; a date such as 2026-11-21 is midnight in the user's time zone, and 7d is seven days back from the service's now. The user is an id, "me" or an email, looked up among the users the signed-in user may read (themself and a caregiver's linked patients). It only reads (getUserById, then getEvents and getMetrics together). Inspecting another user is written to the access log (opsctl audit access) with --reason, which a production profile requires (asked in a terminal). --json gives one document: {user, plan, events, metrics}.`
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
    since: Flags.string({description: 'start of the period: a date (midnight in the user\'s zone), an ISO 8601 time, a duration back from now (7d), today or yesterday (default: midnight six days ago in the user\'s zone: the last 7 days, today included)'}),
    until: Flags.string({description: 'end of the period, in the same forms (default: now)'}),
  }
  static override view: View = {parts: ['user', 'plan', 'events', 'metrics']}

  protected async execute(): Promise<Inspection> {
    const {flags} = this
    // A date is midnight in the user's zone and a duration counts back from the service's now, both
    // known once the user is read; the forms are checked here, before anything is sent.
    const at =
      (value: string | undefined, input: string): PeriodBound =>
      (zone, now) =>
        value === undefined ? undefined : parseTimeInput(value, input, {dateZone: zone, now, zone})
    const since = at(flags.since, 'since')
    const until = at(flags.until, 'until')
    const now = new Date()
    const [from, to] = [since('UTC', now), until('UTC', now)]
    if (from && to && from >= to) throw new UsageError('--since must be before --until; nothing was sent')
    const client = await this.health()
    const userId = await this.readUserId(this.args.userId, client)
    const {inspection, more} = await inspectUser(client, userId, {events: flags.events, since, until})
    if (!this.output.documentWanted) {
      await this.show(inspection, {more, recentDays: flags.since === undefined})
      this.output.markShown()
    }

    return inspection
  }

  private async show({events, metrics, plan, user}: Inspection, {more, recentDays}: {more: boolean; recentDays: boolean}): Promise<void> {
    const heading = (title: string) => process.stdout.write(`\n${title}\n`)
    await this.output.renderPart(userDetail(user), {})
    heading(`Plan (${plan.medications.length} medications)`)
    await this.output.renderPart(planRows(plan.medications), {columns: PLAN_COLUMNS})
    heading(`Period: ${recentDays ? `the last ${RECENT_DAYS} days, ` : ''}${periodText(metrics)}`)
    await this.output.renderPart(periodDetail(metrics), {})
    heading(more ? `Events (the newest ${events.length}; more with --events N)` : `Events (${events.length}, newest first)`)
    await this.output.renderPart(eventRows(events, user.timeZone), {columns: INSPECT_EVENT_COLUMNS, layout: INSPECT_EVENT_LAYOUT})
  }
}
