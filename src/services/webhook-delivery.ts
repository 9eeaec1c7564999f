/** One attempt of a sandbox webhook delivery, as its log lists it (`GET /__sandbox/webhook-deliveries`, `opsctl webhook deliveries`). */
export interface DeliveryAttempt {
  /** the same on every attempt of a delivery, and on a resend */
  deliveryId: string
  event: string
  checkoutId: string
  url: string
  attempt: number
  /** the tenant's time the attempt was due at */
  at: string
  /** the receiver's HTTP status; null when the connection failed */
  status: null | number
  error?: string
  durationMs: number
  /** delivered (a 2xx), retrying (another attempt is due), gave-up (the last attempt failed), resent (by hand) */
  outcome: 'delivered' | 'gave-up' | 'resent' | 'retrying'
}
