/**
 * What the checkout module's stored records must be for the sandbox to serve them: the service's
 * own answer schemas (src/services/checkout/operations.ts), tightened where the sandbox's rules
 * rely on a field (ids as strings, amounts as two-decimal strings, times that parse, the known
 * statuses). `sandbox import` checks every record against these before anything is replaced.
 */
import * as z from 'zod'

import {
  AmountValue,
  CHECKOUT_STATUSES,
  CheckoutRecord,
  Currency,
  CustomizationRecord,
  HttpUrl,
  PAYMENT_STATUSES,
  RedirectUrls,
  REFUND_STATUSES,
  RefundRecord,
  WEBHOOK_EVENTS,
  WebhookRecord,
} from '../../services/checkout/operations.js'

/** The times the sandbox writes (Date#toISOString); any ISO 8601 date-time with a zone parses. */
const IsoDateTime = z.iso.datetime({offset: true, message: 'expected an ISO 8601 date-time with Z or an offset'})

const StoredAmount = z.looseObject({value: AmountValue, currency: Currency})

export const StoredCheckoutSchema = CheckoutRecord.extend({
  totalAmount: StoredAmount.extend({details: z.looseObject({}).optional()}),
  items: z.array(z.looseObject({})),
  // the hosted page sends the buyer there: http(s) only, as when a checkout is created
  redirectUrl: RedirectUrls.optional(),
  requestReferenceNumber: z.string(),
  status: z.enum(CHECKOUT_STATUSES),
  paymentStatus: z.enum(PAYMENT_STATUSES),
  isAutoRedirect: z.boolean(),
  refundedAmount: AmountValue,
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  expiredAt: IsoDateTime,
  paymentDetails: z.looseObject({paymentAt: IsoDateTime.optional(), scheme: z.string(), last4: z.string()}).optional(),
})

export const StoredRefundsSchema = z.array(
  RefundRecord.extend({
    checkout: z.string(),
    reason: z.string(),
    amount: StoredAmount,
    status: z.enum(REFUND_STATUSES),
    createdAt: IsoDateTime,
  }),
)

export const StoredWebhookSchema = WebhookRecord.extend({
  name: z.enum(WEBHOOK_EVENTS),
  callbackUrl: HttpUrl,
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
})

/** The page shows these images: http(s) only, as when they are set. */
export const StoredCustomizationSchema = CustomizationRecord.extend({
  logoUrl: HttpUrl.optional(),
  iconUrl: HttpUrl.optional(),
  appleTouchIconUrl: HttpUrl.optional(),
}).nullable()

export const RefundOutcomesSchema = z.array(z.enum(REFUND_STATUSES))
