/**
 * The delivery log of a sandbox tenant's webhooks (`webhook deliveries`, `webhook resend`), through
 * the tenant's control routes `/__sandbox/webhook-deliveries`: kept in the sandbox's store, so every
 * replica answers the same.
 */
import type {Transport} from '../http/transport.js'
import type {DeliveryAttempt} from '../services/webhook-delivery.js'

import {sandboxControl, type SandboxControlTarget} from './sandbox-control.js'

export async function listDeliveries(transport: Transport, sandbox: SandboxControlTarget, checkoutId?: string): Promise<DeliveryAttempt[]> {
  const path = checkoutId === undefined ? 'webhook-deliveries' : `webhook-deliveries?checkout=${encodeURIComponent(checkoutId)}`
  return ((await sandboxControl(transport, sandbox, 'GET', path)) as {deliveries: DeliveryAttempt[]}).deliveries
}

/** A delivery the tenant has no record of is the sandbox's 404: exit 4. */
export async function resendDelivery(transport: Transport, sandbox: SandboxControlTarget, deliveryId: string): Promise<DeliveryAttempt> {
  return (await sandboxControl(transport, sandbox, 'POST', `webhook-deliveries/${encodeURIComponent(deliveryId)}/resend`, {})) as DeliveryAttempt
}
