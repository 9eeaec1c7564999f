import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE, WEBHOOK_COLUMNS} from '../../cli/checkout/columns.js'
import {visibleText} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {checkoutOps, WEBHOOK_EVENTS} from '../../services/checkout/operations.js'

export default class WebhookRegister extends BaseCommand<typeof WebhookRegister> {
  static override audits = checkoutOps.registerWebhook
  static override description = `Register the callback URL of a checkout event (one webhook per event name).`
  static override examples = [
    '<%= config.bin %> webhook register --name CHECKOUT_SUCCESS \\\n  --url https://shop.example/hooks/paid',
    '<%= config.bin %> webhook register --name CHECKOUT_DROPOUT \\\n  --url https://shop.example/hooks/dropout --json',
  ]
  static override flags = {
    name: Flags.option({description: 'event name', options: WEBHOOK_EVENTS, required: true})(),
    url: Flags.string({description: 'callback URL (http or https) that receives the event', parse: visibleText(), required: true}),
  }

  static override view: View = {columns: WEBHOOK_COLUMNS, zone: CHECKOUT_ZONE}

  protected async execute(): Promise<Record<string, unknown>> {
    const client = await this.client('checkout')
    const {data} = await client.call(checkoutOps.registerWebhook, {body: {name: this.flags.name, callbackUrl: this.flags.url}})
    return data
  }
}
