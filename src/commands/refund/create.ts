import * as Flags from '@oclif/core/flags'

import {BulkMoneyCommand} from '../../cli/checkout/bulk-command.js'
import {bulkFlags} from '../../cli/checkout/bulk-flags.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {refundConfirmation, refundUsedUp} from '../../cli/checkout/money-prompts.js'
import {amountFlag} from '../../cli/checkout/request-flags.js'
import {changeFlags} from '../../cli/flags.js'
import {hints} from '../../cli/hints.js'
import {currencyCode, idArg, visibleText} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {UsageError} from '../../errors.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {refundCheckoutChecked} from '../../services/checkout/refund.js'

export default class RefundCreate extends BulkMoneyCommand<typeof RefundCreate> {
  protected readonly bulkKind = 'refund'
  static override baseFlags = changeFlags
  static override changes = checkoutOps.refundCheckout
  static override args = {checkoutId: {...idArg('checkout id'), required: false}}
  static override description = `Refund a payment, completely or partly, from the day after the transaction.

A checkout gets one refund: complete, or one partial refund; never more than was paid. A FAILED refund does not count. The checkout and its refunds are read first: a second refund, an amount over what is left, or a refund on the transaction day (void it instead) is refused with exit 5 and nothing is sent. --full refunds what is left. Asks for confirmation (--yes without a terminal), and says what the refund uses up: a partial refund is the checkout's only one, so the rest can never be refunded (the --json result says it too: onlyRefund, unrefundable). Never retried. If the answer is lost, the command reads the refunds back: exit 0 if the refund shows (with a note on stderr); if it does not, exit 7 with "not applied" when the service closed the connection, or with the outcome unknown when the CLI gave up waiting (--timeout), since the service may still apply it: check with "opsctl refund list <id>". Running it again is safe either way: a checkout takes one refund.

With --from-file, refunds every row of a file (CSV with the header checkoutId,amount,currency,reason, or JSON lines with those fields; an empty amount refunds what is left; --reason for rows without one). The whole file is planned first, nothing sent: every row checked, every checkout read and the rules applied; the plan says how many will be sent, the total per currency and why any row is refused. --dry-run stops there (exit 0, or 5 when some rows are refused). Then one confirmation (--yes without a terminal; the total typed back on production), and --concurrency rows at a time. A journal (--journal, default FILE.journal) records each row before its request goes out and after its answer: running the same command again skips the rows applied and reads back those whose outcome is unknown before sending anything. The result lists each row (applied, refused, unknown or skipped; the table shows the refused and unknown ones); exit 0 when all were applied or skipped, 5 when some were refused, 7 when some are unknown.`
  static override examples = [
    '<%= config.bin %> refund create chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "damaged item" --amount 50.00',
    '<%= config.bin %> refund create chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "order cancelled" --full --yes',
    '<%= config.bin %> refund create --from-file refunds.csv \\\n  --reason "event cancelled" --dry-run',
    '<%= config.bin %> refund create --from-file refunds.csv \\\n  --reason "event cancelled" --yes --json',
  ]
  static override flags = {
    reason: Flags.string({description: 'why the payment is refunded (with --from-file: for rows that give none)', parse: visibleText()}),
    amount: Flags.string({description: 'amount to refund, e.g. 50.00 (at most two decimals)', exclusive: ['full']}),
    // A relationship, not `exclusive`: oclif's usage line would show it as an empty alternative.
    currency: Flags.string({description: "currency of --amount, three letters (default: the checkout's)", parse: currencyCode(), relationships: [{flags: ['full'], type: 'none'}]}),
    full: Flags.boolean({description: 'refund everything that is left', exclusive: ['amount', 'currency']}),
    ...bulkFlags('refund'),
  }

  static override usage = ['refund create CHECKOUTID --reason <value> [FLAGS]', 'refund create --from-file FILE [FLAGS]']
  static override view: View = {zone: CHECKOUT_ZONE}


  protected async execute(): Promise<Record<string, unknown>> {
    const {flags} = this
    const {checkoutId} = this.args
    if (flags['from-file'] !== undefined) return this.fromFile(flags['from-file'], checkoutId)
    if (checkoutId === undefined) throw new UsageError('Missing the checkout id: opsctl refund create CHECKOUTID', [hints.help(this.id)])
    if (flags.reason === undefined) throw new UsageError('Missing required flag --reason')
    if (flags.amount === undefined && !flags.full) throw new UsageError('Say how much: pass --amount <value> or --full')
    const amount = flags.amount === undefined ? undefined : amountFlag(flags.amount, '--amount')
    const outcome = await refundCheckoutChecked(await this.moneyPath(), {
      checkoutId,
      reason: flags.reason,
      amount,
      currency: flags.currency?.toUpperCase(),
      check: !this.dryRun,
      confirm: refundConfirmation,
    })
    const result = {
      checkoutId: outcome.checkoutId,
      refundId: outcome.refundId,
      status: outcome.status,
      amount: outcome.amount,
      currency: outcome.currency,
      kind: outcome.kind,
      ...(outcome.unrefundable === undefined ? {} : {onlyRefund: true, unrefundable: outcome.unrefundable}),
      reason: outcome.reason,
      requestId: outcome.requestId,
      ...(outcome.reconciled ? {reconciled: true} : {}),
    }
    // Said even under --json: it is about money, and stdout stays pure data.
    if (outcome.reconciled) process.stderr.write(`Note: the answer was lost; reconciled: applied (read back from the service)\n`)
    const usedUp = refundUsedUp(result)
    if (usedUp) this.note(usedUp)
    return result
  }
}
