import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {idArg} from '../../cli/input-text.js'
import {fieldsOf, type View} from '../../cli/output/view.js'
import {checkoutOps, RefundRecord} from '../../services/checkout/operations.js'

export default class RefundGet extends BaseCommand<typeof RefundGet> {
  static override args = {
    checkoutId: idArg('checkout id'),
    refundId: idArg('refund id'),
  }
  static override description = `Show one refund of a checkout.`
  static override examples = ['<%= config.bin %> refund get chk_5f1a2b3c4d5e6f708192a3b4 rfd_9d8e7f6a5b4c3d2e1f0a9b8c']

  static override view: View = {columns: ['id', 'checkout', 'status', 'amount.value', 'amount.currency', 'reason', 'createdAt'], fields: fieldsOf(RefundRecord), zone: CHECKOUT_ZONE}

  protected async execute(): Promise<Record<string, unknown>> {
    const client = await this.client('checkout')
    const {data} = await client.call(checkoutOps.getRefund, {params: {checkoutId: this.args.checkoutId, refundId: this.args.refundId}})
    return data
  }
}
