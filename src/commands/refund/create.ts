import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {changeFlags} from '../../cli/flags.js'
import {idArg, visibleText} from '../../cli/input-text.js'
import {refundConfirmation, refundUsedUp} from '../../cli/money-prompts.js'
import {CHECKOUT_ZONE, type View} from '../../cli/output/view.js'
import {UsageError} from '../../errors.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {amountFlag} from '../../services/checkout/request.js'
import {refundCheckoutChecked} from '../../services/checkout/workflows.js'

export default class RefundCreate extends BaseCommand<typeof RefundCreate> {
  static override baseFlags = changeFlags
  static override changes = checkoutOps.refundCheckout
  static override args = {checkoutId: idArg('checkout id')}
  static override description = `Refund a payment, completely or partly, from the day after the transaction.

A checkout gets one refund: complete, or one partial refund; never more than was paid. A FAILED refund does not count. The checkout and its refunds are read first: a second refund, an amount over what is left, or a refund on the transaction day (void it instead) is refused with exit 5 and nothing is sent. --full refunds what is left. Asks for confirmation (--yes without a terminal), and says what the refund uses up: a partial refund is the checkout's only one, so the rest can never be refunded (the --json result says it too: onlyRefund, unrefundable). Never retried. If the answer is lost, the command reads the refunds back: exit 0 if the refund shows (with a note on stderr); if it does not, exit 7 with "not applied" when the service closed the connection, or with the outcome unknown when the CLI gave up waiting (--timeout), since the service may still apply it: check with "opsctl refund list <id>". Running it again is safe either way: a checkout takes one refund.`
  static override examples = [
    '<%= config.bin %> refund create chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "damaged item" --amount 50.00',
    '<%= config.bin %> refund create chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "order cancelled" --full --yes',
  ]
  static override flags = {
    reason: Flags.string({description: 'why the payment is refunded', parse: visibleText(), required: true}),
    amount: Flags.string({description: 'amount to refund, e.g. 50.00 (at most two decimals)', exclusive: ['full']}),
    // A relationship, not `exclusive`: oclif's usage line would show it as an empty alternative.
    currency: Flags.string({description: "currency of --amount (default: the checkout's)", relationships: [{flags: ['full'], type: 'none'}]}),
    full: Flags.boolean({description: 'refund everything that is left', exclusive: ['amount', 'currency']}),
  }

  static override view: View = {zone: CHECKOUT_ZONE}

  async run(): Promise<Record<string, unknown>> {
    const {flags} = this
    const {checkoutId} = this.args
    if (flags.amount === undefined && !flags.full) throw new UsageError('Say how much: pass --amount <value> or --full')
    const amount = flags.amount === undefined ? undefined : amountFlag(flags.amount, '--amount')
    const client = await this.checkoutClient()
    const outcome = await refundCheckoutChecked(client, {
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
