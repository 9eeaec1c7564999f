/** The columns of the checkout service's records in tables and CSV: the one place for them (commands import them from here). */
import type {ColumnLayout} from '../output/view.js'

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
/** A merchant needs the refund id whole (`refund get` takes it), its status and amount; the reason may be cut. */
export const REFUND_LAYOUT: Record<string, ColumnLayout> = {
  'amount.currency': {priority: 3},
  'amount.value': {priority: 1},
  createdAt: {priority: 2},
  id: {kind: 'id', priority: 1},
  reason: {kind: 'text', priority: 2},
  status: {priority: 1},
}
/** webhook list, register, update */
export const WEBHOOK_COLUMNS = ['id', 'name', 'callbackUrl', 'createdAt', 'updatedAt']
/** The webhook id (`webhook update/delete` take it) and its event whole; the URL may be cut; the dates go first. */
export const WEBHOOK_LAYOUT: Record<string, ColumnLayout> = {
  callbackUrl: {priority: 1},
  createdAt: {priority: 3},
  id: {kind: 'id', priority: 1},
  name: {priority: 1},
  updatedAt: {priority: 4},
}
/** `webhook listen`: one row per delivery received. */
export const WEBHOOK_DELIVERY_COLUMNS = ['time', 'event', 'checkoutId', 'amount', 'currency', 'status', 'paymentStatus', 'answered', 'forward.status']
export const CUSTOMIZATION_COLUMNS = ['customTitle', 'colorScheme', 'logoUrl', 'iconUrl', 'appleTouchIconUrl']
