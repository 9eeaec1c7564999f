import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {changeFlags} from '../../cli/flags.js'
import {idArg} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {checkoutOps} from '../../services/checkout/operations.js'

export default class WebhookDelete extends BaseCommand<typeof WebhookDelete> {
  static override baseFlags = changeFlags
  static override changes = checkoutOps.deleteWebhook
  static override args = {webhookId: idArg('webhook id')}
  static override description = `Delete a webhook. This cannot be undone: its event is no longer delivered.

Asks for confirmation (--yes without a terminal).`
  static override examples = ['<%= config.bin %> webhook delete wh_3c9d2e1f0a9b8c7d6e5f4a3b', '<%= config.bin %> webhook delete wh_3c9d2e1f0a9b8c7d6e5f4a3b --yes']

  static override view: View = {zone: CHECKOUT_ZONE}

  protected async execute(): Promise<Record<string, unknown>> {
    const {webhookId} = this.args
    const client = await this.client('checkout')
    const {data} = await client.call(checkoutOps.deleteWebhook, {params: {webhookId}, confirm: {action: `Delete webhook ${webhookId} (cannot be undone)`}})
    const result = {deleted: data?.id ?? webhookId}
    return result
  }
}
