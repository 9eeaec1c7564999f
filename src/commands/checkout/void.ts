import * as Flags from '@oclif/core/flags'

import {BulkMoneyCommand} from '../../cli/checkout/bulk-command.js'
import {bulkFlags} from '../../cli/checkout/bulk-flags.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {changeFlags} from '../../cli/flags.js'
import {hints} from '../../cli/hints.js'
import {idArg, visibleText} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {UsageError} from '../../errors.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {voidCheckoutChecked} from '../../services/checkout/void.js'

export default class CheckoutVoid extends BulkMoneyCommand<typeof CheckoutVoid> {
  protected readonly bulkKind = 'void'
  static override baseFlags = changeFlags
  static override changes = checkoutOps.voidCheckout
  static override args = {checkoutId: {...idArg('checkout id'), required: false}}
  static override description = `Void a successful payment, on the day of the transaction only.

A void is allowed until 23:59:59 PH Standard Time (UTC+8) of the transaction date; from 00:00:00 of the next day only a refund is possible (opsctl refund create). The checkout is read first: when it cannot be voided, the command says why and what to do instead, and exits 5 without sending. Asks for confirmation (--yes without a terminal). Never retried. If the answer is lost, the command reads the checkout back: exit 0 if the void shows (with a note on stderr); if it does not, exit 7 with "not applied" when the service closed the connection, or with the outcome unknown when the CLI gave up waiting (--timeout), since the service may still apply it: check with "opsctl checkout get <id>". Running it again is safe either way: a second void is refused.

With --from-file, voids every row of a file (one checkout id per line, or CSV with the header checkoutId,reason, or JSON lines; --reason for rows without one). The whole file is planned first, nothing sent: every checkout read and the void window checked; the plan says how many will be voided, the total per currency and why any row is refused. --dry-run stops there (exit 0, or 5 when some rows are refused). Then one confirmation (--yes without a terminal; the total typed back on production), and --concurrency rows at a time. A journal (--journal, default FILE.journal) records each row before its request goes out and after its answer: running the same command again skips the rows applied and reads back those whose outcome is unknown before sending anything. Exit 0 when all were applied or skipped, 5 when some were refused, 7 when some are unknown.`
  static override examples = [
    '<%= config.bin %> checkout void chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "customer cancelled the order"',
    '<%= config.bin %> checkout void chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "duplicate order" --yes --json',
    '<%= config.bin %> checkout void --from-file test-orders.txt \\\n  --reason "test orders" --dry-run',
  ]
  static override flags = {
    reason: Flags.string({description: 'why the payment is voided (with --from-file: for rows that give none)', parse: visibleText()}),
    ...bulkFlags('void'),
  }

  static override usage = ['checkout void CHECKOUTID --reason <value> [FLAGS]', 'checkout void --from-file FILE [FLAGS]']
  static override view: View = {zone: CHECKOUT_ZONE}


  protected async execute(): Promise<Record<string, unknown>> {
    const {checkoutId} = this.args
    if (this.flags['from-file'] !== undefined) return this.fromFile(this.flags['from-file'], checkoutId)
    if (checkoutId === undefined) throw new UsageError('Missing the checkout id: opsctl checkout void CHECKOUTID', [hints.help(this.id)])
    if (this.flags.reason === undefined) throw new UsageError('Missing required flag --reason')
    const outcome = await voidCheckoutChecked(await this.moneyPath(), {
      checkoutId,
      reason: this.flags.reason,
      check: !this.dryRun,
    })
    const result = {
      checkoutId: outcome.checkoutId,
      voidStatus: outcome.voidStatus,
      amount: outcome.amount,
      currency: outcome.currency,
      requestId: outcome.requestId,
      ...(outcome.reconciled ? {reconciled: true} : {}),
    }
    // Said even under --json: it is about money, and stdout stays pure data.
    if (outcome.reconciled) process.stderr.write(`Note: the answer was lost; reconciled: applied (read back from the service)\n`)
    return result
  }
}
