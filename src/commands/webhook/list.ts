import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE, WEBHOOK_COLUMNS, WEBHOOK_LAYOUT} from '../../cli/checkout/columns.js'
import {type View} from '../../cli/output/view.js'
import {checkoutOps} from '../../services/checkout/operations.js'

export default class WebhookList extends BaseCommand<typeof WebhookList> {
  static override description = `List the registered webhooks.`
  static override examples = ['<%= config.bin %> webhook list', '<%= config.bin %> webhook list --json']

  static override view: View = {columns: WEBHOOK_COLUMNS, layout: WEBHOOK_LAYOUT, list: 'webhooks', zone: CHECKOUT_ZONE}

  protected async execute(): Promise<{webhooks: unknown[]}> {
    const client = await this.client('checkout')
    const {data: webhooks} = await client.call(checkoutOps.listWebhooks)
    return {webhooks}
  }
}
