import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {getRefund} from '../../services/checkout/operations.js'

export default class RefundGet extends BaseCommand<typeof RefundGet> {
  static override args = {
    checkoutId: Args.string({description: 'checkout id', required: true}),
    refundId: Args.string({description: 'refund id', required: true}),
  }
  static override description = `Show one refund of a checkout.`
  static override examples = ['<%= config.bin %> refund get 5f1a2b3c-... 9d8e7f6a-...']

  async run(): Promise<Record<string, unknown>> {
    const client = await this.checkoutClient()
    const {data} = await client.call(getRefund, {params: {checkoutId: this.args.checkoutId, refundId: this.args.refundId}})
    await this.print(data, ['id', 'checkout', 'status', 'amount.value', 'amount.currency', 'reason', 'createdAt'])
    return data
  }
}
