/**
 * The hosted checkout service as a table of operations (spec/checkout-api.md, section 4), with
 * the zod schemas that the CLI validates requests with before sending and that the sandbox
 * validates arrivals with. Paths are relative to the checkout base URL (which already ends in
 * `/checkout` on the sandbox).
 *
 * Request schemas keep unknown fields (real clients send more than the spec names) but enforce
 * types and required fields. Response schemas are tolerant: unknown fields pass through, and
 * every field the spec does not show as always present is optional, so a newer server never
 * breaks an older CLI. What they do declare is required of every answer: one without it cannot
 * be read (src/http/answer.ts, exit 6), and nothing is taken from it.
 */
import * as z from 'zod'

import {defineService} from '../../http/operation.js'
import {AMOUNT_PATTERN, amountOfNumber, centsOf, QUANTITY_PATTERN, quantityOfNumber} from './money.js'

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/**
 * A request field that the spec shows as a numeric string but official clients also send as a JSON
 * number (paymaya-js-sdk declares `value: number` and `quantity?: number`). Both are accepted; a
 * number becomes the string (`100` -> `"100.00"`) before the string's own rule applies, so the
 * sandbox stores and answers strings, and the CLI, which sends what the schema outputs, sends
 * strings. A number that cannot be written exactly is refused with the reason.
 */
function stringOrNumber(what: string, ofNumber: (n: number) => {problem: string} | {text: string}, text: z.ZodString) {
  return z
    .union([z.string(), z.number()], {error: (issue) => `expected ${what}, received ${issue.input === null ? 'null' : typeof issue.input}`})
    .transform((value, ctx) => {
      if (typeof value === 'string') return value
      const read = ofNumber(value)
      if ('text' in read) return read.text
      ctx.addIssue({code: 'custom', input: value, message: read.problem})
      return z.NEVER
    })
    .pipe(text)
}

/** A request amount: a decimal string with exactly two decimals (`"1500.00"`), or a JSON number with at most two (`1500`, `1500.5`). */
export const AmountValue = stringOrNumber(
  'a decimal amount such as "1500.00" or 1500',
  amountOfNumber,
  z.string().regex(AMOUNT_PATTERN, 'expected a decimal amount with exactly two decimals, e.g. 1500.00'),
)
/** An amount that moves money (a checkout's total, a refund): more than 0.00. */
export const PositiveAmountValue = AmountValue.refine((v) => (centsOf(v) ?? 0n) > 0n, 'must be greater than 0.00')
/**
 * A URL the service or a browser will follow: http or https only. `javascript:` or `data:` as a
 * redirect URL would run in the buyer's browser on the payment page's say-so.
 */
/** Browsers and most servers stop at 2,048 characters: a longer URL is refused before sending (and by the sandbox with a 400). */
export const MAX_URL_LENGTH = 2048
export const HttpUrl = z.string().max(MAX_URL_LENGTH, `expected a URL of at most ${MAX_URL_LENGTH} characters`).pipe(z.url({protocol: /^https?$/, message: 'expected an http(s) URL'}))
/** ISO 4217 code. The spec only says "currency code"; the service is Philippine, so PHP is the CLI default. */
export const Currency = z.string().regex(/^[A-Z]{3}$/, 'expected a three-letter currency code such as PHP')
/** Anything a server sends as an amount: tolerated as string or number, shown as received. */
const AnyAmountValue = z.union([z.string(), z.number()])

/** Top-level totalAmount.details: the spec names these five decimal strings. */
const TotalDetails = z.looseObject({
  discount: AmountValue.optional(),
  serviceCharge: AmountValue.optional(),
  shippingFee: AmountValue.optional(),
  tax: AmountValue.optional(),
  subtotal: AmountValue.optional(),
})
/** Item amount.details / totalAmount.details: discount and subtotal. */
const ItemDetails = z.looseObject({discount: AmountValue.optional(), subtotal: AmountValue.optional()})

/**
 * "Which inner fields are mandatory: not shown." Decision: the top-level totalAmount needs value
 * and currency (an amount without a currency cannot be charged) and is more than 0.00 (nothing to
 * charge otherwise); an item needs a name; an item's amount/totalAmount need a value when present
 * and may be 0.00 (a free item in an order); everything else is optional.
 */
export const TotalAmountRequest = z.looseObject({value: PositiveAmountValue, currency: Currency, details: TotalDetails.optional()})
const ItemAmountRequest = z.looseObject({value: AmountValue, currency: Currency.optional(), details: ItemDetails.optional()})

export const ItemRequest = z.looseObject({
  name: z.string().min(1),
  code: z.string().optional(),
  description: z.string().optional(),
  /** "quantity, sent as a numeric string" (a JSON number is accepted and becomes the string). */
  quantity: stringOrNumber('a numeric string such as "2"', quantityOfNumber, z.string().regex(QUANTITY_PATTERN, 'expected a numeric string such as "2"')).optional(),
  amount: ItemAmountRequest.optional(),
  totalAmount: ItemAmountRequest.optional(),
})

const Address = z.looseObject({
  line1: z.string().optional(),
  line2: z.string().optional(),
  city: z.string().optional(),
  state: z.string().optional(),
  zipCode: z.string().optional(),
  countryCode: z.string().optional(),
})

/** Every buyer field is optional ("which inner fields are mandatory: not shown"). */
export const Buyer = z.looseObject({
  firstName: z.string().optional(),
  middleName: z.string().optional(),
  lastName: z.string().optional(),
  // the spec says neither whether an email is required nor its form: any text, but no longer than an address can be (RFC 5321)
  contact: z.looseObject({phone: z.string().optional(), email: z.string().max(254, 'expected an email address of at most 254 characters').optional()}).optional(),
  shippingAddress: Address.optional(),
  billingAddress: Address.optional(),
  ipAddress: z.string().optional(),
})

/** Where the hosted page sends the buyer after each outcome. Each one optional (not shown); http(s) only. */
export const RedirectUrls = z.looseObject({
  success: HttpUrl.optional(),
  failure: HttpUrl.optional(),
  cancel: HttpUrl.optional(),
})

// ---------------------------------------------------------------------------------------------
// Checkouts
// ---------------------------------------------------------------------------------------------

export const CheckoutRequest = z.looseObject({
  totalAmount: TotalAmountRequest,
  buyer: Buyer.optional(),
  items: z.array(ItemRequest).min(1, 'at least one item is required'),
  redirectUrl: RedirectUrls.optional(),
  requestReferenceNumber: z.string().min(1),
  metadata: z.record(z.string(), z.unknown()).optional(),
})
export type CheckoutRequest = z.infer<typeof CheckoutRequest>

export const CheckoutCreated = z.looseObject({checkoutId: z.string(), redirectUrl: z.string()})

/**
 * Value lists are "not shown" in the spec; these follow the real service. They document the
 * values opsctl knows; the record schema accepts any string so a new value never breaks a read.
 */
export const CHECKOUT_STATUSES = ['CREATED', 'PROCESSING', 'COMPLETED', 'EXPIRED'] as const
export const PAYMENT_STATUSES = [
  'PENDING_PAYMENT',
  'PAYMENT_SUCCESS',
  'PAYMENT_FAILED',
  'PAYMENT_EXPIRED',
  'PAYMENT_CANCELLED',
  'VOIDED',
  'REFUNDED',
] as const
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number]
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]

const AmountRecord = z.looseObject({value: AnyAmountValue, currency: z.string().optional()})

/**
 * The checkout record: the request's fields plus the service's. Only `id` is relied on as
 * always present. The extra fields (createdAt, updatedAt, expiredAt = createdAt + 1 h,
 * paymentScheme, refundedAmount, receiptNumber) are not in the spec's table: they follow the real
 * service and are optional. `paymentDetails.paymentAt` (when the payment was made: the
 * "transaction date" of the void window) is not shown either; when absent the rules fall back to
 * `updatedAt` of a successful payment.
 */
export const CheckoutRecord = z.looseObject({
  id: z.string(),
  totalAmount: AmountRecord.optional(),
  buyer: z.looseObject({}).optional(),
  items: z.array(z.looseObject({})).optional(),
  redirectUrl: z.looseObject({}).optional(),
  requestReferenceNumber: z.string().optional(),
  metadata: z.unknown().optional(),
  status: z.string().optional(),
  paymentStatus: z.string().optional(),
  paymentType: z.string().optional(),
  isAutoRedirect: z.boolean().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  expiredAt: z.string().optional(),
  paymentScheme: z.string().optional(),
  /** Decimal string of what has been refunded so far; tolerated as a number or an amount object. */
  refundedAmount: z.union([AnyAmountValue, AmountRecord]).optional(),
  receiptNumber: z.string().optional(),
  paymentDetails: z.looseObject({paymentAt: z.string().optional()}).optional(),
})
export type CheckoutRecord = z.infer<typeof CheckoutRecord>

/** Void: "reason (string, required)". An empty reason is refused (a void needs an audit trail). */
export const VoidRequest = z.looseObject({reason: z.string().trim().min(1, 'a reason is required')})
/** Void answer. Value seen: voidStatus SUCCESS; other values not shown. */
export const VoidResult = z.looseObject({checkoutId: z.string(), voidStatus: z.string()})

// ---------------------------------------------------------------------------------------------
// Refunds
// ---------------------------------------------------------------------------------------------

export const RefundRequest = z.looseObject({
  reason: z.string().trim().min(1, 'a reason is required'),
  amount: z.looseObject({value: PositiveAmountValue, currency: Currency}),
})
export type RefundRequest = z.infer<typeof RefundRequest>

export const REFUND_STATUSES = ['SUCCESS', 'FAILED'] as const
/** Refund create answer: `{refundId, status}`, status SUCCESS or FAILED. */
export const RefundCreated = z.looseObject({refundId: z.string(), status: z.string()})

/** A refund as listed. `checkout` is the id of the checkout refunded. All but id optional (tolerant). */
export const RefundRecord = z.looseObject({
  id: z.string(),
  reason: z.string().optional(),
  amount: AmountRecord.optional(),
  status: z.string().optional(),
  createdAt: z.string().optional(),
  checkout: z.string().optional(),
})
export type RefundRecord = z.infer<typeof RefundRecord>

// ---------------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------------

export const WEBHOOK_EVENTS = ['CHECKOUT_SUCCESS', 'CHECKOUT_FAILURE', 'CHECKOUT_DROPOUT'] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/** name and callbackUrl are both required (register and update). The name is one of the three events. */
export const WebhookRequest = z.looseObject({
  name: z.enum(WEBHOOK_EVENTS),
  callbackUrl: HttpUrl,
})
export type WebhookRequest = z.infer<typeof WebhookRequest>

/** createdAt/updatedAt are not in the spec's table; they follow the real service and are optional. */
export const WebhookRecord = z.looseObject({
  id: z.string(),
  name: z.string(),
  callbackUrl: z.string(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
})
export type WebhookRecord = z.infer<typeof WebhookRecord>
export const WebhookDeleted = z.looseObject({id: z.string()})

// ---------------------------------------------------------------------------------------------
// Customization
// ---------------------------------------------------------------------------------------------

/** A hex colour: `#1a2b3c` or `#abc`. */
export const HEX_COLOR = /^#(?:[\da-f]{3}|[\da-f]{6})$/i

/** All five fields are required on set. Image URLs must be http(s); the colour a hex colour. */
export const CustomizationRequest = z.looseObject({
  logoUrl: HttpUrl,
  iconUrl: HttpUrl,
  appleTouchIconUrl: HttpUrl,
  customTitle: z.string().trim().min(1),
  colorScheme: z.string().regex(HEX_COLOR, 'expected a hex colour such as #1a2b3c'),
})
export type CustomizationRequest = z.infer<typeof CustomizationRequest>

/** As read back: all five tolerated as optional strings (a server may have older, partial data). */
export const CustomizationRecord = z.looseObject({
  logoUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  appleTouchIconUrl: z.string().optional(),
  customTitle: z.string().optional(),
  colorScheme: z.string().optional(),
})
export type CustomizationRecord = z.infer<typeof CustomizationRecord>
export const CustomizationRemoved = z.looseObject({message: z.string().optional()})

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

/** The whole table, in the spec's order. */
export const checkoutService = defineService({
  name: 'checkout',
  operations: {
    /** Initiate checkout: returns checkoutId and redirectUrl (the hosted payment page). A retried POST could create two checkouts for one order. */
    initiateCheckout: {
      method: 'POST',
      path: '/v1/checkouts',
      auth: 'public',
      body: CheckoutRequest,
      response: CheckoutCreated,
      // Audited so that `checkout list` can show what was created from this machine (no list endpoint).
      audited: true,
    },
    /** Retrieve checkout. */
    getCheckout: {method: 'GET', path: '/v1/checkouts/{checkoutId}', auth: 'secret', response: CheckoutRecord},
    /** Void checkout (same day only): invalidates the authorized payment. */
    voidCheckout: {
      method: 'DELETE',
      path: '/v1/checkouts/{checkoutId}',
      auth: 'secret',
      body: VoidRequest,
      response: VoidResult,
      // Moves money: never retried, even though DELETE is idempotent in HTTP terms.
      idempotent: false,
      destructive: true,
      audited: true,
    },
    /** Refund checkout: one complete or one partial refund. */
    refundCheckout: {
      method: 'POST',
      path: '/v1/checkouts/{checkoutId}/refunds',
      auth: 'secret',
      body: RefundRequest,
      response: RefundCreated,
      destructive: true,
      audited: true,
    },
    /** List refunds of checkout (FAILED attempts included). */
    listRefunds: {method: 'GET', path: '/v1/checkouts/{checkoutId}/refunds', auth: 'secret', response: z.array(RefundRecord)},
    /** Get refund. */
    getRefund: {method: 'GET', path: '/v1/checkouts/{checkoutId}/refunds/{refundId}', auth: 'secret', response: RefundRecord},
    /** Register webhook (one per event name). */
    registerWebhook: {method: 'POST', path: '/v1/webhooks', auth: 'secret', body: WebhookRequest, response: WebhookRecord, audited: true},
    /** List webhooks. */
    listWebhooks: {method: 'GET', path: '/v1/webhooks', auth: 'secret', response: z.array(WebhookRecord)},
    /** Update webhook: a PUT of the full record, so repeating it leaves the same state. */
    updateWebhook: {
      method: 'PUT',
      path: '/v1/webhooks/{webhookId}',
      auth: 'secret',
      body: WebhookRequest,
      response: WebhookRecord,
      audited: true,
    },
    /** Delete webhook (cannot be undone). */
    deleteWebhook: {
      method: 'DELETE',
      path: '/v1/webhooks/{webhookId}',
      auth: 'secret',
      response: WebhookDeleted,
      // A retry after an unseen success would answer 404 and hide that the delete happened.
      idempotent: false,
      destructive: true,
      audited: true,
    },
    /** Set customization of the hosted payment page (all five fields). */
    setCustomization: {
      method: 'POST',
      path: '/v1/customizations',
      auth: 'secret',
      body: CustomizationRequest,
      response: CustomizationRecord,
      // Sets the whole customization: repeating it leaves the same state.
      idempotent: true,
      audited: true,
    },
    /** Get customization. */
    getCustomization: {method: 'GET', path: '/v1/customizations', auth: 'secret', response: CustomizationRecord},
    /** Remove customization. */
    removeCustomization: {
      method: 'DELETE',
      path: '/v1/customizations',
      auth: 'secret',
      response: CustomizationRemoved,
      // Like deleteWebhook: a retry after an unseen success would answer 404.
      idempotent: false,
      destructive: true,
      audited: true,
    },
  },
})

/** The rows by operation id: `checkoutOps.<id>` everywhere a row is named (the table is the only list of names). */
export const checkoutOps = checkoutService.operations
