/**
 * The hosted payment page of the sandbox: `GET <origin>/checkout/pay/<id>` shows the checkout
 * (title, logo, icons and button colour from the customization) with a card form that POSTs
 * `application/x-www-form-urlencoded` back to the same address. Test cards decide the outcome;
 * the page then sends the buyer (303) to the merchant's success, failure or cancel URL and
 * raises the matching event (CHECKOUT_SUCCESS / CHECKOUT_FAILURE / CHECKOUT_DROPOUT).
 *
 * Plain functions over the sandbox context, so they are tested without a server. The card
 * number and CVC are used to decide the outcome and then dropped: only the scheme and the last
 * four digits are kept.
 */
import type {SandboxContext} from '../types.js'
import type {StoredCheckout, StoredCustomization} from './state.js'

import {
  cardScheme,
  CVC_PATTERN,
  isCardExpired,
  lastFour,
  normalizeCardNumber,
  parseExpiry,
  SUCCEEDING_CARDS,
} from '../../lib/checkout/test-cards.js'
import {SandboxError} from '../types.js'
import {CHECKOUT_PREFIX, checkoutState, findCheckout} from './handlers.js'

export interface PageReply {
  status: number
  html?: string
  /** For a 303: where the buyer goes next. */
  location?: string
}

const DEFAULT_LOOK = {customTitle: 'Checkout', colorScheme: '#1f6feb'}

export function escapeHtml(text: unknown): string {
  return String(text ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

function layout(customization: null | StoredCustomization, body: string): string {
  const title = customization?.customTitle ?? DEFAULT_LOOK.customTitle
  const color = customization?.colorScheme ?? DEFAULT_LOOK.colorScheme
  const icons = customization
    ? `<link rel="icon" href="${escapeHtml(customization.iconUrl)}">\n<link rel="apple-touch-icon" href="${escapeHtml(customization.appleTouchIconUrl)}">`
    : ''
  const logo = customization ? `<img class="logo" src="${escapeHtml(customization.logoUrl)}" alt="${escapeHtml(title)}">` : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${icons}
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}
header{display:flex;align-items:center;gap:1rem}
.logo{max-height:3rem}
table{width:100%;border-collapse:collapse}td{padding:.25rem 0}td.amount{text-align:right}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button.pay{background:${escapeHtml(color)};color:#fff;border:0;padding:.75rem 1.5rem;font-size:1rem;margin-top:1rem;cursor:pointer}
button.cancel{background:none;border:0;color:#555;text-decoration:underline;cursor:pointer;margin-left:1rem}
.message{padding:.75rem;background:#f6f6f6}
</style>
</head>
<body>
<header>${logo}<h1>${escapeHtml(title)}</h1></header>
${body}
</body>
</html>
`
}

function messagePage(ctx: SandboxContext, status: number, message: string): PageReply {
  return {status, html: layout(checkoutState(ctx).customization, `<p class="message">${escapeHtml(message)}</p>`)}
}

function formPage(ctx: SandboxContext, checkout: StoredCheckout, status = 200, problem?: string): PageReply {
  const {currency, value} = checkout.totalAmount
  const rows = checkout.items
    .map((item) => {
      const line = (item.totalAmount as {value?: string} | undefined)?.value ?? (item.amount as {value?: string} | undefined)?.value ?? ''
      return `<tr><td>${escapeHtml(item.name)}${item.quantity ? ` &times; ${escapeHtml(item.quantity)}` : ''}</td><td class="amount">${escapeHtml(line)}</td></tr>`
    })
    .join('\n')
  const action = `${CHECKOUT_PREFIX}/pay/${encodeURIComponent(checkout.id)}`
  const body = `<main>
${problem ? `<p class="message" role="alert">${escapeHtml(problem)}</p>` : ''}
<table>
${rows}
<tr><th>Total</th><th class="amount" id="total">${escapeHtml(currency)} ${escapeHtml(value)}</th></tr>
</table>
<form method="post" action="${escapeHtml(action)}">
<label for="cardNumber">Card number</label>
<input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required>
<label for="expiry">Expiry (MM/YY)</label>
<input id="expiry" name="expiry" placeholder="MM/YY" autocomplete="cc-exp" required>
<label for="cvc">CVC</label>
<input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required>
<button class="pay" type="submit" name="action" value="pay">Pay ${escapeHtml(currency)} ${escapeHtml(value)}</button>
<button class="cancel" type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>
<p><small>Reference ${escapeHtml(checkout.requestReferenceNumber)}</small></p>
</main>`
  return {status, html: layout(checkoutState(ctx).customization, body)}
}

function lookup(ctx: SandboxContext, checkoutId: string): PageReply | StoredCheckout {
  try {
    return findCheckout(ctx, checkoutId)
  } catch (error) {
    if (error instanceof SandboxError && error.status === 404) return messagePage(ctx, 404, `Checkout ${checkoutId} not found.`)
    throw error
  }
}

function notPayable(ctx: SandboxContext, checkout: StoredCheckout): PageReply {
  const why =
    checkout.status === 'EXPIRED'
      ? 'This checkout has expired.'
      : `This checkout can no longer be paid (${checkout.status}, ${checkout.paymentStatus}).`
  return messagePage(ctx, 409, why)
}

/** GET: the page with its card form, or a message when the checkout cannot be paid. */
export function showPaymentPage(ctx: SandboxContext, checkoutId: string): PageReply {
  const found = lookup(ctx, checkoutId)
  if (!('id' in found)) return found
  if (found.status !== 'CREATED') return notPayable(ctx, found)
  return formPage(ctx, found)
}

function finish(
  ctx: SandboxContext,
  checkout: StoredCheckout,
  event: 'CHECKOUT_DROPOUT' | 'CHECKOUT_FAILURE' | 'CHECKOUT_SUCCESS',
  target: string | undefined,
  message: string,
): PageReply {
  ctx.changed()
  ctx.emit({type: event, checkoutId: checkout.id, payload: structuredClone(checkout)})
  if (target) return {status: 303, location: target}
  return messagePage(ctx, 200, message)
}

/** POST: the buyer pays or cancels. The form is `{action: pay|cancel, cardNumber, expiry, cvc}`. */
export function submitPaymentForm(ctx: SandboxContext, checkoutId: string, form: Record<string, unknown>): PageReply {
  const found = lookup(ctx, checkoutId)
  if (!('id' in found)) return found
  const checkout = found
  if (checkout.status !== 'CREATED') return notPayable(ctx, checkout)
  const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '')
  const now = ctx.clock.now()

  if (field('action') === 'cancel') {
    checkout.status = 'COMPLETED'
    checkout.paymentStatus = 'PAYMENT_CANCELLED'
    checkout.updatedAt = now.toISOString()
    return finish(ctx, checkout, 'CHECKOUT_DROPOUT', checkout.redirectUrl?.cancel, 'Payment cancelled.')
  }

  if (field('action') !== 'pay' && field('action') !== '') return formPage(ctx, checkout, 400, 'Unknown action.')
  const number = normalizeCardNumber(field('cardNumber'))
  const expiry = parseExpiry(field('expiry'))
  if (!number) return formPage(ctx, checkout, 400, 'Enter a card number of 13 to 19 digits.')
  if (!expiry) return formPage(ctx, checkout, 400, 'Enter the expiry date as MM/YY.')
  if (!CVC_PATTERN.test(field('cvc'))) return formPage(ctx, checkout, 400, 'Enter the 3 or 4 digit security code.')

  const scheme = cardScheme(number)
  const approved = SUCCEEDING_CARDS.has(number) && !isCardExpired(expiry, now)
  checkout.status = 'COMPLETED'
  checkout.paymentType = 'CREDIT_CARD'
  checkout.paymentScheme = scheme
  checkout.updatedAt = now.toISOString()
  checkout.paymentDetails = {scheme, last4: lastFour(number), ...(approved ? {paymentAt: now.toISOString()} : {})}
  if (approved) {
    checkout.paymentStatus = 'PAYMENT_SUCCESS'
    checkout.receiptNumber = ctx.hex(12)
    return finish(ctx, checkout, 'CHECKOUT_SUCCESS', checkout.redirectUrl?.success, 'Payment received. Thank you.')
  }

  checkout.paymentStatus = 'PAYMENT_FAILED'
  return finish(ctx, checkout, 'CHECKOUT_FAILURE', checkout.redirectUrl?.failure, 'The payment was declined.')
}
