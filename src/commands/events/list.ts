import {EVENT_COLUMNS} from '../../cli/health/columns.js'
import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {eventFilterFlags, eventsQueryFromFlags} from '../../cli/health/events.js'
import {reasonFlags} from '../../cli/health/reason-flag.js'
import {type ColumnLayout, fieldsOf, type View} from '../../cli/output/view.js'
import {type PagedDocument, pagingFlags, streamPages} from '../../cli/paging.js'
import {RECENT_EVENT_IDS, rememberEventIds} from '../../profiles/recent-events.js'
import {Event, healthOps} from '../../services/health/operations.js'

/**
 * What support reads in a narrow terminal: when, which medication and how much, the symptoms and
 * triggers. The 24-character id goes before them (the note's --columns brings it back).
 */
const EVENT_LAYOUT: Record<string, ColumnLayout> = {
  address: {kind: 'text', priority: 3},
  date: {priority: 1},
  doses: {priority: 1},
  id: {kind: 'id', priority: 2},
  medicationId: {priority: 2},
  medicationType: {priority: 1},
  nightEvent: {priority: 3},
  source: {priority: 3},
  symptoms: {kind: 'text', priority: 1},
  triggers: {kind: 'text', priority: 1},
}

export default class EventsList extends HealthCommand<typeof EventsList> {
  static override args = {userId: userIdArg}
  static override description = `List a user's events, newest first, with every filter of the service.

One page (50 events) by default. --limit N reads pages until N events; --all follows every page, writing each event as it arrives: with --output ndjson memory stays flat however many there are. Lists (--medication-id, --symptom, --trigger) keep events that have any of the values.`
  static override examples = [
    '<%= config.bin %> events list me',
    '<%= config.bin %> events list me --start 2026-03-01 --end 2026-03-31T23:59:59Z \\\n  --medication-type rescue --night',
    '<%= config.bin %> events list me --symptom cough --symptom wheeze --trigger coldAir \\\n  --no-preemptive',
    '<%= config.bin %> events list me --all --output ndjson > events.ndjson',
    '<%= config.bin %> events list me --limit 120 --output csv',
  ]
  static override flags = {...healthFlags, ...reasonFlags, ...eventFilterFlags, ...pagingFlags(healthOps.getEvents)}
  static override view: View = {columns: EVENT_COLUMNS, fields: fieldsOf(Event), layout: EVENT_LAYOUT, list: 'events'}

  /** In table, CSV and ndjson form the events were written as they arrived, and `events` is empty. */
  protected async execute(): Promise<PagedDocument<typeof healthOps.getEvents>> {
    const {flags} = this
    const query = eventsQueryFromFlags(flags)
    const client = await this.health()
    const userId = await this.readUserId(this.args.userId, client)
    const newest: string[] = []
    const remember = (e: Event) => newest.length < RECENT_EVENT_IDS && typeof e.id === 'string' && newest.push(e.id)
    const pages = this.output.pagingHost<Event>(this.id, flags)
    const document = await streamPages(pages, client, healthOps.getEvents, {params: {userId}, query}, {onItem: remember})
    // The signed-in user's newest ids, for Tab: `events get me <Tab>` (src/cli/completion).
    if (this.args.userId === 'me' && !flags['paging-token']) await rememberEventIds(this.configDir, (await this.profile()).name, newest)
    return document
  }
}
