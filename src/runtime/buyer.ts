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
import type {ServiceClient} from '../http/client.js'

import {ApiError, NetworkError, RuleError, UsageError} from '../errors.js'
import {DryRunRequest} from '../http/client.js'
import {getDispatcher} from '../http/dispatcher.js'
import {hasSecretField} from '../http/redact.js'
import {assertSafeTransport, buildUrl} from '../http/url.js'
import {USER_AGENT} from '../http/user-agent.js'
import {getCheckout} from '../services/checkout/operations.js'
import {cardScheme, CVC_PATTERN, lastFour, normalizeCardNumber, parseExpiry, TEST_CARDS} from '../services/checkout/test-cards.js'

export interface BuyerInput {
  checkoutId: string
  action: 'cancel' | 'pay'
  card?: string
  expiry?: string
  cvc?: string
  timeoutMs?: number
  dryRun?: boolean
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
  if (input.dryRun) {
    const shown = Object.entries(fields)
      .map(([k, v]) => `--data-urlencode '${k}=${k === 'action' ? v : '[REDACTED]'}'`)
      .join(' ')
    throw new DryRunRequest(`curl -X POST '${pageUrl.href}' ${shown}`, {
      method: 'POST',
      url: pageUrl.href,
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: Object.fromEntries(Object.keys(fields).map((k) => [k, k === 'action' ? fields[k] : '[REDACTED]'])),
    })
  }

  const page = await fetchPage(pageUrl, 'GET', input.timeoutMs)
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
  const answer = await fetchPage(formUrl, 'POST', input.timeoutMs, new URLSearchParams(fields).toString())
  if (answer.status >= 400) {
    throw new RuleError(
      `the payment page refused the ${input.action === 'pay' ? 'payment' : 'cancel'}: ${pageMessage(answer.body) ?? `HTTP ${answer.status}`}`,
    ).withNext({step: 'checkout-get', checkoutId})
  }

  const record = (await client.call(getCheckout, {params: {checkoutId}})).data
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

async function fetchPage(
  url: URL,
  method: 'GET' | 'POST',
  timeoutMs = 30_000,
  form?: string,
): Promise<{status: number; body: string; location?: string}> {
  const dispatcher = await getDispatcher()
  try {
    const res = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method,
      headers: {
        accept: 'text/html',
        'user-agent': USER_AGENT,
        ...(form === undefined ? {} : {'content-type': 'application/x-www-form-urlencoded'}),
      },
      body: form,
      signal: AbortSignal.timeout(timeoutMs),
    })
    const body = await res.body.text()
    const location = res.headers.location
    return {status: res.statusCode, body, location: Array.isArray(location) ? location[0] : location}
  } catch (error) {
    const code = (error as {code?: string}).code
    throw new NetworkError(`payment page ${url.origin}: ${code ?? (error as Error).message}`, error, method === 'POST', [
      `Check that ${url.origin} is reachable`,
    ]).withNext({step: 'sandbox-start'})
  }
}
