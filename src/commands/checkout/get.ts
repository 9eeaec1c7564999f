import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_COLUMNS, CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {idArg} from '../../cli/input-text.js'
import {fieldsOf, type View} from '../../cli/output/view.js'
import {checkoutOps, CheckoutRecord} from '../../services/checkout/operations.js'

export default class CheckoutGet extends BaseCommand<typeof CheckoutGet> {
  static override args = {checkoutId: idArg('checkout id')}
  static override description = `Show a checkout: its status, payment status, amount and times.

The table shows the main fields; -o json (or --json) shows the whole record, items and buyer included.`
  static override examples = [
    '<%= config.bin %> checkout get chk_5f1a2b3c4d5e6f708192a3b4',
    '<%= config.bin %> checkout get chk_5f1a2b3c4d5e6f708192a3b4 --json | jq .paymentStatus',
  ]

  static override view: View = {columns: CHECKOUT_COLUMNS, fields: fieldsOf(CheckoutRecord), zone: CHECKOUT_ZONE}

  protected async execute(): Promise<Record<string, unknown>> {
    const client = await this.client('checkout')
    const {data} = await client.call(checkoutOps.getCheckout, {params: {checkoutId: this.args.checkoutId}})
    return data
  }
}
