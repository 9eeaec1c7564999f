import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {type View} from '../../cli/output/view.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox} from '../../runtime/sandbox-control.js'
import {resendDelivery} from '../../runtime/webhook-deliveries.js'
import {type DeliveryAttempt} from '../../services/webhook-delivery.js'

export default class WebhookResend extends BaseCommand<typeof WebhookResend> {
  static override requiresSandbox = {why: 'webhook resend asks a sandbox to send a delivery again'}
  static override description = `Send a webhook delivery of the sandbox tenant again, now: the same body, byte for byte, and the same delivery id.

The attempt is the delivery's next number and is logged as "resent" (see "webhook deliveries"). A delivery id the tenant has no record of is exit 4.`
  static override examples = ['<%= config.bin %> webhook resend 5b0e8f9e-2c1d-4f7a-9a51-3c7d2e6f8a10']
  static override args = {deliveryId: Args.string({description: 'delivery id, from "webhook deliveries"', required: true})}

  static override view: View = {columns: ['deliveryId', 'event', 'checkoutId', 'attempt', 'at', 'status', 'outcome', 'error']}

  protected async execute(): Promise<DeliveryAttempt> {
    const sandbox = await localSandbox((await this.profile()).profile.health.baseUrl, this.configDir)
    return resendDelivery(createTransport(this.clientOptions()), sandbox, this.args.deliveryId)
  }
}
