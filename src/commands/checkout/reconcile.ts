import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CONCURRENCY} from '../../cli/checkout/bulk-flags.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {closingLine, DAY_PEOPLE_VIEW, DAY_TOTALS_VIEW, DAY_VIEW, peopleRow} from '../../cli/checkout/end-of-day-view.js'
import {idProblem} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {progress} from '../../cli/progress.js'
import {escapeControlChars} from '../../control-chars.js'
import {changedHereNotListed, type DayDocument, readShopFile, reconcileDay} from '../../runtime/checkout/end-of-day.js'
import {parseTimeInput} from '../../services/time-input.js'

export default class CheckoutReconcile extends BaseCommand<typeof CheckoutReconcile> {
  static override description = `Hold the shop's orders against the checkout service: one verdict per order, and totals per currency.

FILE is CSV with the header checkoutId,amount,currency,state (and optionally reference and refunded), or JSON lines with those fields; - reads standard input. state is what the shop believes: paid, voided, refunded or unpaid. amount is always the order's amount as charged (the checkout's total); refunded is what the shop refunded of it, only with state refunded (empty: the whole amount).

Each checkout and its refunds are read (reads only, at most --concurrency at once) and get a verdict: match, state-differs, amount-differs (the total, its currency or the refunded amount), unknown (the service does not know the id) or error (the read failed: never a match). The service's state is on its own clock: paid, declined, expired, pending, cancelled, voided or refunded. The table shows the rows that differ first, then the totals per currency (paid, voided, refunded, net) for the shop's side and the service's; --json has the whole document, -o csv every row for a spreadsheet.

With --audit, the checkouts this machine created, voided or refunded with the same profile since --since (default: today, midnight in Manila, the service's day), outside test runs, that the file does not list are read too and come out as rows of verdict not-in-file: the shop may have missed an order or a refund. Their money counts on the service's side of the totals.

The file is read whole and checked before the first request (at most 50,000 rows and 16 MiB): a malformed row is exit 2, nothing read. Exits 0 when every row matches, 1 when any differs (not-in-file too), 3 when the credentials are refused, 6 (7 for the network) when a read failed.`
  static override examples = [
    '<%= config.bin %> checkout reconcile --from-file orders.csv',
    '<%= config.bin %> checkout reconcile --from-file orders.csv --only-differences',
    '<%= config.bin %> checkout reconcile --from-file orders.csv -o csv > reconciled.csv',
    'shop-export --today | \\\n  <%= config.bin %> checkout reconcile --from-file - --json | jq .totals',
    '<%= config.bin %> checkout reconcile --from-file orders.csv --audit',
    '<%= config.bin %> checkout reconcile --from-file orders.csv --audit --since yesterday',
  ]
  static override flags = {
    'from-file': Flags.string({description: "the shop's orders: CSV (checkoutId,amount,currency,state[,reference,refunded]) or JSON lines; - for standard input", helpValue: 'FILE', required: true}),
    concurrency: Flags.integer({default: CONCURRENCY.default, description: 'checkouts read at once', max: CONCURRENCY.max, min: CONCURRENCY.min}),
    'only-differences': Flags.boolean({description: 'leave out the rows that match (the totals still count every row)'}),
    audit: Flags.boolean({description: "also the checkouts this machine changed with this profile (its audit log) that the file does not list: verdict not-in-file"}),
    since: Flags.string({dependsOn: ['audit'], description: 'with --audit: from when the audit log counts (a date is midnight in Manila; 7d, today, yesterday, an ISO 8601 time; default: today)'}),
  }
  static override view: View = DAY_VIEW

  protected async execute(): Promise<DayDocument> {
    const {flags} = this
    const since = parseTimeInput(flags.since ?? 'today', 'since', {dateZone: CHECKOUT_ZONE, zone: CHECKOUT_ZONE})
    const rows = await readShopFile(flags['from-file'], idProblem)
    const notInFile = flags.audit
      ? await changedHereNotListed(this.configDir, (await this.profile()).name, since, new Set(rows.map((row) => row.checkoutId)))
      : []
    const client = await this.client('checkout')
    const line = progress()
    let result
    try {
      result = await reconcileDay(client, rows, {concurrency: flags.concurrency, notInFile, onRow: (done, total) => line.update(`Reconciling: ${done}/${total} checkouts read`)})
    } finally {
      line.done()
    }

    const document = flags['only-differences'] ? {...result.document, rows: result.document.rows.filter((r) => r.verdict !== 'match')} : result.document
    this.output.closeWith(escapeControlChars(closingLine(result.counts, rows.length + notInFile.length, result.failed)))
    process.exitCode = result.exitCode
    if (this.output.format === 'table' && !this.output.documentWanted && !this.flags.columns) {
      await this.output.renderPart(document.rows.map((r) => peopleRow(r)), DAY_PEOPLE_VIEW)
      process.stdout.write('\nTotals:\n')
      await this.output.renderPart(document.totals, DAY_TOTALS_VIEW)
      this.output.markShown()
    }

    return document
  }
}
