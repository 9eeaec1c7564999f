import * as Flags from '@oclif/core/flags'
import * as z from 'zod'

import {type AccessEntry, accessPath} from '../../audit/access.js'
import {damagedWarning, readJsonLines} from '../../audit/read.js'
import {BaseCommand} from '../../cli/base-command.js'
import {writeNote} from '../../cli/error-output.js'
import {MAX_LIMIT, outputFlags} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {parseTimeRange} from '../../services/time-input.js'

/** A line of access.jsonl; fields of other versions pass through, a line without these is damaged and skipped. */
const AccessLine = z.looseObject({
  time: z.string(),
  profile: z.string(),
  env: z.string(),
  signedInUser: z.string(),
  user: z.string(),
  command: z.string(),
  reason: z.string().optional(),
})

export default class AuditAccess extends BaseCommand<typeof AuditAccess> {
  static override baseFlags = outputFlags
  static override description = `Show the access log: every read of another user's health data made from this machine.

users get, users inspect, users me (its linked patients), events list, events get, metrics get, plan show and api health GET on a user's record, events or metrics each add a line to <config dir>/access.jsonl (mode 0600) when the user read is not the signed-in one: when, the profile and its environment, the signed-in user, the user read, the command and the reason given (--reason; asked in a terminal and required without one on production profiles). It never holds the data read. A damaged line is skipped with a warning naming it.`
  static override examples = [
    '<%= config.bin %> audit access',
    '<%= config.bin %> audit access --since 7d --user 65f1c0ffee00000000000001',
    '<%= config.bin %> audit access --since 2026-11-01 --json',
  ]
  static override flags = {
    since: Flags.string({
      description: 'only reads at or after this time: ISO 8601, a duration back from now (24h, 7d), today or yesterday',
    }),
    until: Flags.string({description: 'only reads before this time, in the same forms'}),
    user: Flags.string({description: 'only reads of this user id'}),
    limit: Flags.integer({description: `show only the newest N reads, up to ${MAX_LIMIT} (without --limit: all of them)`, max: MAX_LIMIT, min: 1}),
  }

  static override view: View = {
    columns: ['time', 'user', 'command', 'reason', 'signedInUser', 'profile', 'env'],
    // The reason is what support came for: never cut. Profile and environment tell a production read
    // from a sandbox one: shown, or said once above the table when they are the same on every row.
    layout: {
      command: {kind: 'text', priority: 3},
      env: {priority: 1},
      profile: {priority: 2},
      reason: {kind: 'reason', priority: 1},
      signedInUser: {kind: 'id', priority: 4},
      time: {priority: 1},
      user: {kind: 'id', priority: 1},
    },
    list: 'entries',
  }

  /** Reads of health data: in the health service's zone, the signed-in user's (as `users` and `events` show them). */
  protected override async displayZone(): Promise<string | undefined> {
    return (await this.profile().catch(() => undefined))?.profile.health.timeZone
  }

  protected async execute(): Promise<{entries: AccessEntry[]; path: string}> {
    const {flags} = this
    const range = parseTimeRange(flags.since, flags.until)
    const path = accessPath(this.configDir)
    // Read from the newest end, only as far back as --since (and a margin) or --limit go.
    const {damaged, empty, entries} = await readJsonLines(path, AccessLine, {
      limit: flags.limit,
      match: flags.user === undefined ? undefined : (e) => e.user === flags.user,
      since: range.since?.getTime(),
      until: range.until?.getTime(),
    })
    const warning = damagedWarning(path, damaged)
    // Said even under --json: the list may miss what those lines held.
    if (warning) writeNote(warning)
    if (empty) this.note(`No reads of other users' health data recorded in ${path}`)
    return {entries, path}
  }
}
