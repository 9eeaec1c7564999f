/**
 * Checkout service state held by the sandbox: amounts as two-decimal strings, times as ISO
 * strings; the tables keyed by ids a client sends in paths are Maps (so `__proto__` or
 * `constructor` is just an unknown id), which the core persists as [key, value] pairs. Card data is never part of it beyond the
 * last four digits and the scheme.
 */
export interface StoredCheckout {
  id: string
  totalAmount: {value: string; currency: string; details?: Record<string, unknown>}
  items: Record<string, unknown>[]
  buyer?: Record<string, unknown>
  redirectUrl?: {success?: string; failure?: string; cancel?: string}
  requestReferenceNumber: string
  metadata?: Record<string, unknown>
  /** CREATED | PROCESSING | COMPLETED | EXPIRED */
  status: string
  /** PENDING_PAYMENT | PAYMENT_SUCCESS | PAYMENT_FAILED | PAYMENT_EXPIRED | PAYMENT_CANCELLED | VOIDED | REFUNDED */
  paymentStatus: string
  isAutoRedirect: boolean
  paymentType?: string
  paymentScheme?: string
  receiptNumber?: string
  /** What has been refunded so far (successful refunds only), two decimals. */
  refundedAmount: string
  createdAt: string
  updatedAt: string
  /** createdAt + 1 h */
  expiredAt: string
  /** Set once the buyer submits the card form: when it was paid (success only), scheme and last 4 digits. */
  paymentDetails?: {paymentAt?: string; scheme: string; last4: string}
  /** Unknown request fields are kept, as the real service keeps them. */
  [extra: string]: unknown
}

export interface StoredRefund {
  id: string
  checkout: string
  reason: string
  amount: {value: string; currency: string}
  status: 'FAILED' | 'SUCCESS'
  createdAt: string
}

export interface StoredWebhook {
  id: string
  name: string
  callbackUrl: string
  createdAt: string
  updatedAt: string
}

export interface StoredCustomization {
  logoUrl: string
  iconUrl: string
  appleTouchIconUrl: string
  customTitle: string
  colorScheme: string
}

export interface CheckoutState {
  checkouts: Map<string, StoredCheckout>
  /** Refunds by checkout id, oldest first; FAILED attempts are kept. */
  refunds: Map<string, StoredRefund[]>
  webhooks: Map<string, StoredWebhook>
  customization: null | StoredCustomization
  /** Statuses the next refunds will get (control route `/__sandbox/checkout/next-refund`), used in order. */
  refundOutcomes: ('FAILED' | 'SUCCESS')[]
}

export function emptyCheckoutState(): CheckoutState {
  return {checkouts: new Map(), refunds: new Map(), webhooks: new Map(), customization: null, refundOutcomes: []}
}
