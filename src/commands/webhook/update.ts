import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE, WEBHOOK_COLUMNS} from '../../cli/checkout/columns.js'
import {idArg, visibleText} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {checkoutOps, WEBHOOK_EVENTS} from '../../services/checkout/operations.js'
import {updateWebhookMerged} from '../../services/checkout/webhooks.js'

export default class WebhookUpdate extends BaseCommand<typeof WebhookUpdate> {
  static override audits = checkoutOps.updateWebhook
  static override args = {webhookId: idArg('webhook id')}
  static override description = `Change a webhook's event name or callback URL.

The service replaces both fields; the one not given is kept from the current webhook.`
  static override examples = [
    '<%= config.bin %> webhook update wh_3c9d2e1f0a9b8c7d6e5f4a3b \\\n  --url https://shop.example/hooks/v2/paid',
    '<%= config.bin %> webhook update wh_3c9d2e1f0a9b8c7d6e5f4a3b --name CHECKOUT_FAILURE \\\n  --url https://shop.example/hooks/failed',
  ]
  static override flags = {
    name: Flags.option({description: 'event name', options: WEBHOOK_EVENTS})(),
    url: Flags.string({description: 'callback URL (http or https)', parse: visibleText()}),
  }

  static override inputFlags = {callbackUrl: 'url'}
  static override view: View = {columns: WEBHOOK_COLUMNS, zone: CHECKOUT_ZONE}

  protected async execute(): Promise<Record<string, unknown>> {
    const client = await this.client('checkout')
    const data = await updateWebhookMerged(client, this.args.webhookId, {
      ...(this.flags.name ? {name: this.flags.name} : {}),
      ...(this.flags.url ? {callbackUrl: this.flags.url} : {}),
    })
    return data
  }
}
