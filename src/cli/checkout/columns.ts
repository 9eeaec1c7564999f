/** The columns of the checkout service's records in tables and CSV: the one place for them (commands import them from here). */

/** Times of the checkout service are read in PH Standard Time (UTC+8, no daylight saving): its void and refund windows. */
export const CHECKOUT_ZONE = 'Asia/Manila'

export const CHECKOUT_COLUMNS = [
  'id',
  'status',
  'paymentStatus',
  'totalAmount.value',
  'totalAmount.currency',
  'requestReferenceNumber',
  'paymentType',
  'paymentScheme',
  'receiptNumber',
  'refundedAmount',
  'createdAt',
  'updatedAt',
  'expiredAt',
]
/** `checkout list`: the checkouts of the audit log, their state read from the service. */
export const CREATED_CHECKOUT_COLUMNS = ['checkoutId', 'amount', 'currency', 'state', 'stateAt', 'createdAt', 'reference', 'lastAttempt', 'lastAttemptAt', 'source']
/** `checkout list --sandbox-seeded`. */
export const SEEDED_CHECKOUT_COLUMNS = ['checkoutId', 'amount', 'currency', 'paidAt', 'reference', 'paymentStatus', 'possible']
export const REFUND_COLUMNS = ['id', 'status', 'amount.value', 'amount.currency', 'reason', 'createdAt']
/** webhook list, register, update */
export const WEBHOOK_COLUMNS = ['id', 'name', 'callbackUrl', 'createdAt', 'updatedAt']
/** `webhook listen`: one row per delivery received. */
export const WEBHOOK_DELIVERY_COLUMNS = ['time', 'event', 'checkoutId', 'amount', 'currency', 'status', 'paymentStatus', 'answered', 'forward.status']
export const CUSTOMIZATION_COLUMNS = ['customTitle', 'colorScheme', 'logoUrl', 'iconUrl', 'appleTouchIconUrl']
