import {Flags} from '@oclif/core'

import {HealthCommand, healthFlags, userIdArg} from '../../cli/health-command.js'
import {EVENT_COLUMNS, eventFilterFlags, eventsQueryFromFlags, walkEvents} from '../../cli/health-events.js'
import {type Event} from '../../services/health/operations.js'

export default class EventsList extends HealthCommand<typeof EventsList> {
  static override args = {userId: userIdArg}
  static override description = `List a user's events, newest first (getEvents), with every filter of the service.

One page (50 events) by default. --limit N reads pages until N events; --all follows every page,
writing each event as it arrives: with --output ndjson memory stays flat however many there are.
Lists (--medication-id, --symptom, --trigger) keep events that have any of the values.`
  static override examples = [
    '<%= config.bin %> events list me',
    '<%= config.bin %> events list me --start 2026-03-01 --end 2026-03-31T23:59:59Z --medication-type rescue --night',
    '<%= config.bin %> events list me --symptom cough --symptom wheeze --trigger coldAir --no-preemptive',
    '<%= config.bin %> events list me --all --output ndjson > events.ndjson',
    '<%= config.bin %> events list me --limit 120 --output csv',
  ]
  static override flags = {
    ...healthFlags,
    ...eventFilterFlags,
    all: Flags.boolean({description: 'follow every page (streams)'}),
    limit: Flags.integer({description: 'at most this many events (follows pages as needed)', min: 1}),
    'paging-token': Flags.string({description: 'start from this page (the token a previous listing printed)'}),
  }

  async run(): Promise<{count: number; events?: Event[]; paging: {next?: string}}> {
    const {flags} = this
    const query = eventsQueryFromFlags(flags)
    const client = await this.health()
    const userId = await this.resolveUserId(this.args.userId, client)
    const options = {all: flags.all, limit: flags.limit, pagingToken: flags['paging-token']}

    if (this.jsonEnabled()) {
      const events: Event[] = []
      const walk = await walkEvents(client, userId, query, options, (e) => {
        events.push(e)
      })
      return {count: walk.count, events, paging: walk.next ? {next: walk.next} : {}}
    }

    const writer = this.rowWriter(EVENT_COLUMNS)
    const walk = await walkEvents(client, userId, query, options, (e) => writer.push(e))
    await writer.end()
    if (walk.next) this.note(`More events: add --paging-token ${walk.next}, or --all for every page`)
    return {count: walk.count, paging: walk.next ? {next: walk.next} : {}}
  }
}
