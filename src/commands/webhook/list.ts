import {BaseCommand} from '../../cli/base-command.js'
import {listWebhooks} from '../../services/checkout/operations.js'
import {WEBHOOK_COLUMNS} from './register.js'

export default class WebhookList extends BaseCommand<typeof WebhookList> {
  static override description = `List the registered webhooks.`
  static override examples = ['<%= config.bin %> webhook list', '<%= config.bin %> webhook list --json']

  async run(): Promise<{webhooks: unknown[]}> {
    const client = await this.checkoutClient()
    const {data} = await client.call(listWebhooks)
    const webhooks = Array.isArray(data) ? data : []
    await this.print(webhooks, WEBHOOK_COLUMNS)
    return {webhooks}
  }
}
