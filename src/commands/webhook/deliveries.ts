import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {type View} from '../../cli/output/view.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox} from '../../runtime/sandbox-control.js'
import {listDeliveries} from '../../runtime/webhook-deliveries.js'
import {type DeliveryAttempt} from '../../services/webhook-delivery.js'

export default class WebhookDeliveries extends BaseCommand<typeof WebhookDeliveries> {
  static override requiresSandbox = {why: 'webhook deliveries reads the delivery log of a sandbox'}
  static override description = `List every delivery attempt of the sandbox tenant's webhooks, oldest first.

Each delivery has an id, the same on every attempt (and on a resend), sent with each attempt in the x-checkout-delivery-id header beside the attempt's number (x-checkout-delivery-attempt), so a receiver can deduplicate. A failed attempt is retried 5, 15 and 45 minutes of the sandbox clock after each failure (attempts at 0, 5, 20 and 65 minutes), then given up ("gave-up"). The log is kept in the sandbox's store: every replica lists the same.`
  static override examples = [
    '<%= config.bin %> webhook deliveries',
    '<%= config.bin %> webhook deliveries --checkout chk_3f9c2a7b1d4e5f6071829304 --json',
  ]
  static override flags = {
    checkout: Flags.string({description: 'only the deliveries of this checkout', helpValue: '<checkoutId>'}),
  }

  static override view: View = {
    columns: ['deliveryId', 'event', 'checkoutId', 'attempt', 'at', 'status', 'outcome', 'error'],
    layout: {at: {priority: 1}, checkoutId: {priority: 1}, deliveryId: {kind: 'id', priority: 1}, error: {kind: 'reason', priority: 2}, event: {priority: 1}, outcome: {priority: 1}},
    list: 'deliveries',
    // the checkout service's data: its zone, as webhook listen and the checkout commands show it
    zone: CHECKOUT_ZONE,
  }

  protected async execute(): Promise<{deliveries: DeliveryAttempt[]}> {
    const sandbox = await localSandbox((await this.profile()).profile.health.baseUrl, this.configDir)
    return {deliveries: await listDeliveries(createTransport(this.clientOptions()), sandbox, this.flags.checkout)}
  }
}
