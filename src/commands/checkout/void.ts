import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {changeFlags} from '../../cli/flags.js'
import {idArg, visibleText} from '../../cli/input-text.js'
import {CHECKOUT_ZONE, type View} from '../../cli/output/view.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {voidCheckoutChecked} from '../../services/checkout/workflows.js'

export default class CheckoutVoid extends BaseCommand<typeof CheckoutVoid> {
  static override baseFlags = changeFlags
  static override changes = checkoutOps.voidCheckout
  static override args = {checkoutId: idArg('checkout id')}
  static override description = `Void a successful payment, on the day of the transaction only.

A void is allowed until 23:59:59 PH Standard Time (UTC+8) of the transaction date; from 00:00:00 of the next day only a refund is possible (opsctl refund create). The checkout is read first: when it cannot be voided, the command says why and what to do instead, and exits 5 without sending. Asks for confirmation (--yes without a terminal). Never retried. If the answer is lost, the command reads the checkout back: exit 0 if the void shows (with a note on stderr); if it does not, exit 7 with "not applied" when the service closed the connection, or with the outcome unknown when the CLI gave up waiting (--timeout), since the service may still apply it: check with "opsctl checkout get <id>". Running it again is safe either way: a second void is refused.`
  static override examples = [
    '<%= config.bin %> checkout void chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "customer cancelled the order"',
    '<%= config.bin %> checkout void chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --reason "duplicate order" --yes --json',
  ]
  static override flags = {
    reason: Flags.string({description: 'why the payment is voided', parse: visibleText(), required: true}),
  }

  static override view: View = {zone: CHECKOUT_ZONE}

  async run(): Promise<Record<string, unknown>> {
    const {checkoutId} = this.args
    const client = await this.checkoutClient()
    const outcome = await voidCheckoutChecked(client, {
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
