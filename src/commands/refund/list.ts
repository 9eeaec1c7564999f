import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE, REFUND_COLUMNS, REFUND_LAYOUT} from '../../cli/checkout/columns.js'
import {idArg} from '../../cli/input-text.js'
import {fieldsOf, type View} from '../../cli/output/view.js'
import {checkoutOps, RefundRecord} from '../../services/checkout/operations.js'

export default class RefundList extends BaseCommand<typeof RefundList> {
  static override args = {checkoutId: idArg('checkout id')}
  static override description = `List the refunds of a checkout, FAILED attempts included.`
  static override examples = ['<%= config.bin %> refund list chk_5f1a2b3c4d5e6f708192a3b4', '<%= config.bin %> refund list chk_5f1a2b3c4d5e6f708192a3b4 -o csv']

  static override view: View = {columns: REFUND_COLUMNS, fields: fieldsOf(RefundRecord), layout: REFUND_LAYOUT, list: 'refunds', zone: CHECKOUT_ZONE}

  protected async execute(): Promise<{refunds: unknown[]}> {
    const client = await this.client('checkout')
    const {data: refunds} = await client.call(checkoutOps.listRefunds, {params: {checkoutId: this.args.checkoutId}})
    return {refunds}
  }
}
