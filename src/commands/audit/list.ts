import * as Flags from '@oclif/core/flags'

import {entryFilter} from '../../audit/history.js'
import {type AuditEntry, auditPath} from '../../audit/log.js'
import {damagedWarning, readAudit} from '../../audit/read.js'
import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {writeNote} from '../../cli/error-output.js'
import {MAX_LIMIT, outputFlags} from '../../cli/flags.js'
import {ATTEMPT_OUTCOMES} from '../../services/change.js'
import {checkoutService} from '../../services/checkout/operations.js'
import {parseTimeRange} from '../../services/time-input.js'

/** The operations that write audit lines, from the table (`audited: true`). */
const AUDITED = Object.values(checkoutService.operations)
  .filter((op) => op.audited)
  .map((op) => op.id)
import {type View} from '../../cli/output/view.js'

export default class AuditList extends BaseCommand<typeof AuditList> {
  static override baseFlags = outputFlags
  static override description = `Show the local audit log: every attempt at a money or configuration change made from this machine.

Each attempt at a checkout creation, void, refund, webhook change or customization change is recorded in <config dir>/audit.jsonl (mode 0600), whatever became of it: applied; refused by the service (status and code); refused by a rule before sending (the rule's code); declined at the confirmation prompt; refused locally (bad input, no --yes without a terminal, or a read the change depends on answered something that could not be read: nothing sent); unknown (sent, and no answer, or none that could be read); not sent; or reconciled (the answer was lost and a read told what happened). A line holds the time, profile, operation, ids (checkout, refund, webhook), reference, amount and currency, the reason given, the outcome, code, status and request id. It never holds keys, sessions, card or buyer data. A damaged line is skipped with a warning naming it.`
  static override examples = [
    '<%= config.bin %> audit list',
    '<%= config.bin %> audit list --checkout chk_123 --json',
    '<%= config.bin %> audit list --profile shop --since 7d',
    '<%= config.bin %> audit list --outcome "refused by rule" --since 24h',
    '<%= config.bin %> audit list --operation refundCheckout --limit 20',
    '<%= config.bin %> audit list --since 2026-11-01 --until 2026-12-01 -o csv',
  ]
  static override flags = {
    limit: Flags.integer({description: `show only the newest N entries, up to ${MAX_LIMIT} (without --limit: all of them)`, max: MAX_LIMIT, min: 1}),
    operation: Flags.string({description: 'only this operation', options: AUDITED}),
    checkout: Flags.string({description: 'only entries about this checkout id'}),
    profile: Flags.string({char: 'p', description: "only entries written with this profile (a CI profile's apart from the merchant's)"}),
    outcome: Flags.string({description: 'only this outcome', options: [...ATTEMPT_OUTCOMES]}),
    since: Flags.string({
      description: 'only entries at or after this time: ISO 8601, a duration back from now (24h, 7d), today or yesterday',
    }),
    until: Flags.string({description: 'only entries before this time: ISO 8601, a duration back from now, today or yesterday'}),
  }

  static override view: View = {
    columns: [
      'time',
      'profile',
      'operation',
      'outcome',
      'status',
      'code',
      'amount.value',
      'amount.currency',
      'reason',
      'checkoutId',
      'refundId',
      'webhookId',
    ],
    // Narrow terminals keep what happened to which checkout and how much; the profile and the other ids follow.
    layout: {
      'amount.currency': {priority: 2},
      'amount.value': {priority: 1},
      profile: {kind: 'text', priority: 4},
      checkoutId: {kind: 'id', priority: 1},
      code: {priority: 2},
      operation: {priority: 1},
      outcome: {priority: 1},
      reason: {kind: 'text', priority: 2},
      refundId: {kind: 'id', priority: 4},
      status: {priority: 3},
      time: {priority: 2},
      webhookId: {kind: 'id', priority: 4},
    },
    list: 'entries',
    // The log is about checkout money: its times read as the checkout tables' (`checkout list`).
    zone: CHECKOUT_ZONE,
  }

  protected async execute(): Promise<{entries: AuditEntry[]; path: string}> {
    const {flags} = this
    const {since, until} = parseTimeRange(flags.since, flags.until)
    // Read from the newest end, only as far back as --since (and a margin) or --limit go.
    const {damaged, entries} = await readAudit(this.configDir, {
      limit: flags.limit,
      match: entryFilter({profile: flags.profile, outcome: flags.outcome, operation: flags.operation, checkoutId: flags.checkout}),
      since: since?.getTime(),
      until: until?.getTime(),
    })
    const warning = damagedWarning(auditPath(this.configDir), damaged)
    // Said even under --json: the list may miss what those lines held.
    if (warning) writeNote(warning)
    return {entries, path: auditPath(this.configDir)}
  }
}
