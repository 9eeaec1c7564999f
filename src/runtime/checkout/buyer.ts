/**
 * `opsctl checkout pay`: act as the buyer on the sandbox's hosted payment page, over plain HTTP
 * (the page is public: no API key), the way a browser would: GET the page, POST its card form
 * (application/x-www-form-urlencoded), and read where the page sends the buyer (303 Location).
 * Then the checkout is read back with the secret key to report its state.
 *
 * The card number is sent only to the page; it is never printed, traced or returned: only its
 * scheme and last four digits are. It is posted only to the origin of the profile's checkout base
 * URL (the sandbox): a form that names any other origin is refused before anything is posted.
 */
import type {ServiceClient} from '../../http/client.js'
import type {Transport} from '../../http/transport.js'

import {ApiError, RuleError, UsageError} from '../../errors.js'
import {hasSecretField} from '../../http/redact.js'
import {assertSafeTransport, buildUrl} from '../../http/url.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {cardScheme, CVC_PATTERN, lastFour, normalizeCardNumber, parseExpiry, TEST_CARDS} from '../../services/checkout/test-cards.js'

export interface BuyerInput {
  checkoutId: string
  action: 'cancel' | 'pay'
  card?: string
  expiry?: string
  cvc?: string
  /** for the default expiry date */
  now?: Date
}

export interface BuyerOutcome {
  checkoutId: string
  action: 'cancel' | 'pay'
  card?: {scheme: string; last4: string}
  /** What was posted, and where: the card masked to its last four digits. */
  sent: {method: 'POST'; url: string; card?: string}
  /** Where the page sent the buyer (the merchant's success/failure/cancel URL), if anywhere. */
  redirectedTo?: string
  status?: string
  paymentStatus?: string
}

/**
 * The hosted page of a checkout on the sandbox: `<checkout base URL>/pay/<id>`. The id must stay
 * one path segment: empty, `.` and `..` would make it the address of another page (URL parsing
 * resolves dot segments even when encoded as they are).
 */
export function paymentPageUrl(checkoutBaseUrl: string, checkoutId: string): URL {
  if (checkoutId.trim() === '' || checkoutId === '.' || checkoutId === '..') {
    throw new UsageError(`"${checkoutId}" is not a checkout id; pass the checkoutId that checkout create printed`)
  }

  return buildUrl(checkoutBaseUrl, `/pay/${encodeURIComponent(checkoutId)}`)
}

/** `************2346`: as much of a card number as opsctl ever shows. */
export function maskCard(number: string): string {
  return `${'*'.repeat(Math.max(number.length - 4, 0))}${lastFour(number)}`
}

/**
 * Where the page's form posts, resolved against the page: only the page's own origin (the
 * sandbox) may receive card data. Anything else (another host, another port or scheme, a
 * `javascript:` action) is refused, exit 5, before anything is posted.
 */
function formTarget(html: string, pageUrl: URL, checkoutId: string): URL {
  const action = /<form[^>]*\baction="([^"]*)"/i.exec(html)?.[1]
  let target: URL
  try {
    target = action ? new URL(decodeEntities(action), pageUrl) : pageUrl
  } catch {
    target = new URL('about:invalid')
  }

  if (target.origin !== pageUrl.origin) {
    throw new RuleError(
      `the payment page of checkout ${checkoutId} posts its form to ${target.protocol === 'about:' ? 'an invalid address' : target.origin}, ` +
        `not to the sandbox (${pageUrl.origin}); refusing to send card data there. Nothing was posted`,
    ).withNext({step: 'checkout-get', checkoutId})
  }

  return target
}

function pageMessage(html: string): string | undefined {
  const m = /<p[^>]*class="message"[^>]*>([\s\S]*?)<\/p>/i.exec(html)
  return m ? decodeEntities(m[1].replaceAll(/<[^>]*>/g, '').trim()) : undefined
}

function decodeEntities(text: string): string {
  return text.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')
}

function formFields(input: BuyerInput): {fields: Record<string, string>; card?: BuyerOutcome['card']} {
  if (input.action === 'cancel') return {fields: {action: 'cancel'}}
  const number = normalizeCardNumber(input.card ?? TEST_CARDS.mastercardSuccess)
  if (!number) throw new UsageError('--card must be a card number of 13 to 19 digits')
  const now = input.now ?? new Date()
  const expiry = input.expiry ?? `12/${String((now.getUTCFullYear() + 3) % 100).padStart(2, '0')}`
  if (!parseExpiry(expiry)) throw new UsageError(`--expiry must be MM/YY, got "${expiry}"`)
  const cvc = input.cvc ?? '123'
  if (!CVC_PATTERN.test(cvc)) throw new UsageError('--cvc must be 3 or 4 digits')
  return {
    fields: {action: 'pay', cardNumber: number, expiry, cvc},
    card: {scheme: cardScheme(number), last4: lastFour(number)},
  }
}

export async function actAsBuyer(client: ServiceClient, input: BuyerInput): Promise<BuyerOutcome> {
  const {checkoutId} = input
  const {fields, card} = formFields(input)
  const pageUrl = paymentPageUrl(client.target.baseUrl, checkoutId)
  // Card data goes to the page and the read-back carries the secret key: refused before the first request.
  assertSafeTransport(pageUrl, hasSecretField(fields) || Boolean(client.target.secretKey))
  // The page and its form go through the client's own transport: a dry run stops at the first request.
  const {transport} = client
  const page = await fetchPage(transport, pageUrl, 'GET')
  if (page.status === 404) {
    throw new ApiError({
      status: 404,
      code: 'PY0009',
      message: `checkout ${checkoutId} not found`,
      service: 'checkout',
      operationId: 'payment page',
    })
  }

  if (page.status !== 200) {
    throw new RuleError(
      `checkout ${checkoutId} cannot be paid: ${pageMessage(page.body) ?? `the payment page answered HTTP ${page.status}`}`,
    ).withNext({step: 'checkout-get', checkoutId})
  }

  const formUrl = formTarget(page.body, pageUrl, checkoutId)
  assertSafeTransport(formUrl, hasSecretField(fields))
  const answer = await fetchPage(transport, formUrl, 'POST', fields)
  if (answer.status >= 400) {
    throw new RuleError(
      `the payment page refused the ${input.action === 'pay' ? 'payment' : 'cancel'}: ${pageMessage(answer.body) ?? `HTTP ${answer.status}`}`,
    ).withNext({step: 'checkout-get', checkoutId})
  }

  const record = (await client.call(checkoutOps.getCheckout, {params: {checkoutId}})).data
  return {
    checkoutId,
    action: input.action,
    ...(card ? {card} : {}),
    sent: {method: 'POST', url: formUrl.href, ...(fields.cardNumber ? {card: maskCard(fields.cardNumber)} : {})},
    ...(answer.location ? {redirectedTo: answer.location} : {}),
    status: record.status,
    paymentStatus: record.paymentStatus,
  }
}

/** The page is public (no API key) and answers HTML; the form is posted once, never retried. */
async function fetchPage(
  transport: Transport,
  url: URL,
  method: 'GET' | 'POST',
  form?: Record<string, string>,
): Promise<{status: number; body: string; location?: string}> {
  const res = await transport.send({
    method,
    url,
    label: 'payment page',
    accept: 'text/html',
    idempotent: method === 'GET',
    ...(form === undefined ? {} : {body: {form}}),
  })
  const {location} = res.headers
  return {status: res.status, body: res.text, location: Array.isArray(location) ? location[0] : location}
}
