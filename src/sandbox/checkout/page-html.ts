/**
 * The HTML of the sandbox's hosted payment page: the card form and the pages that say what
 * became of a checkout. No JavaScript: the form posts as any browser posts it, the test-card hint
 * opens with <details>, and the logo is decorative (alt="", the title is under it) and has no
 * margin of its own, so a logo that fails to load takes no room instead of repeating the title.
 */
import type {StoredCheckout, StoredCustomization} from './state.js'

import {buttonTextColor} from '../../services/checkout/contrast.js'
import {TEST_CARDS} from '../../services/checkout/test-cards.js'

const DEFAULT_LOOK = {customTitle: 'Checkout', colorScheme: '#1f6feb'}

export function escapeHtml(text: unknown): string {
  return String(text ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}
header .logo{display:block;max-height:3rem}
.sandbox{margin:0 0 1rem;padding:.5rem .75rem;background:#fff4ce;border:1px solid #e0c060;font-size:.9rem}
.sandbox details{margin-top:.25rem}.sandbox ul{margin:.25rem 0;padding-left:1.25rem}
table{width:100%;border-collapse:collapse}th,td{padding:.25rem 0;text-align:left}
.amount{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.total th{border-top:1px solid #ccc;padding-top:.5rem}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
input[aria-invalid=true]{border:2px solid #b42318}
button.cancel{background:none;border:0;color:#555;text-decoration:underline;cursor:pointer;margin-left:1rem}
.message{padding:.75rem;background:#f6f6f6}
.problem{background:#fdecea;color:#7a1a12}`

const SCHEME_NAMES: ReadonlyMap<string, string> = new Map([
  ['MASTERCARD', 'Mastercard'],
  ['VISA', 'Visa'],
])

function grouped(number: string): string {
  return number.replaceAll(/(\d{4})(?=\d)/g, '$1 ')
}

/** The banner every sandbox page carries: no real money, and the cards that decide outcomes. */
function sandboxBanner(): string {
  return `<aside class="sandbox" aria-label="Sandbox">
<strong>Sandbox: no real money.</strong> This page only acts out a payment.
<details><summary>Test cards</summary>
<ul>
<li><code>${grouped(TEST_CARDS.mastercardSuccess)}</code> (Mastercard) or <code>${grouped(TEST_CARDS.visaSuccess)}</code> (Visa): paid</li>
<li><code>${grouped(TEST_CARDS.mastercardDeclined)}</code>, or any other valid number: declined</li>
<li>Any future expiry date (MM/YY) and any 3-digit security code.</li>
</ul>
</details>
</aside>`
}

/** `heading` names what the page says (an error, an outcome) in the tab's title, before the shop's title. */
export function layout(customization: null | StoredCustomization, body: string, heading?: string): string {
  const shopTitle = customization?.customTitle ?? DEFAULT_LOOK.customTitle
  const color = customization?.colorScheme ?? DEFAULT_LOOK.colorScheme
  const icons = customization
    ? `<link rel="icon" href="${escapeHtml(customization.iconUrl)}">\n<link rel="apple-touch-icon" href="${escapeHtml(customization.appleTouchIconUrl)}">`
    : ''
  const logo = customization ? `<img class="logo" src="${escapeHtml(customization.logoUrl)}" alt="">` : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(heading ? `${heading} · ${shopTitle}` : shopTitle)}</title>
${icons}
<style>
${STYLE}
button.pay{background:${escapeHtml(color)};color:${buttonTextColor(color)};border:0;padding:.75rem 1.5rem;font-size:1rem;margin-top:1rem;cursor:pointer}
</style>
</head>
<body>
${sandboxBanner()}
<header>${logo}<h1>${escapeHtml(shopTitle)}</h1></header>
${body}
</body>
</html>
`
}

export type CardField = 'cardNumber' | 'cvc' | 'expiry'

/** What the buyer typed, shown again after a refusal; the CVC never is. */
export interface FormEcho {
  cardNumber?: string
  expiry?: string
}

export interface FormProblem {
  message: string
  /** The field to fix: marked invalid and focused. */
  field?: CardField
}

function amountOf(item: Record<string, unknown>): string {
  const line = (item.totalAmount as undefined | {value?: string})?.value ?? (item.amount as undefined | {value?: string})?.value
  return line ?? ''
}

function input(name: CardField, label: string, attributes: string, problem?: FormProblem, value?: string): string {
  const invalid = problem?.field === name ? ' aria-invalid="true" aria-describedby="problem" autofocus' : ''
  const shown = value ? ` value="${escapeHtml(value)}"` : ''
  return `<label for="${name}">${label}</label>
<input id="${name}" name="${name}" ${attributes}${shown}${invalid} required>`
}

export function formBody(checkout: StoredCheckout, action: string, problem?: FormProblem, echo: FormEcho = {}): string {
  const {currency, value} = checkout.totalAmount
  const rows = checkout.items
    .map(
      (item) =>
        `<tr><td>${escapeHtml(item.name)}${item.quantity ? ` &times; ${escapeHtml(item.quantity)}` : ''}</td><td class="amount">${escapeHtml(amountOf(item))}</td></tr>`,
    )
    .join('\n')
  return `<main>
${problem ? `<p class="message problem" id="problem" role="alert">${escapeHtml(problem.message)}</p>` : ''}
<table>
${rows}
<tr class="total"><th scope="row">Total</th><th class="amount" id="total">${escapeHtml(currency)} ${escapeHtml(value)}</th></tr>
</table>
<form method="post" action="${escapeHtml(action)}">
${input('cardNumber', 'Card number', 'inputmode="numeric" autocomplete="cc-number"', problem, echo.cardNumber)}
${input('expiry', 'Expiry (MM/YY)', 'placeholder="MM/YY" inputmode="numeric" autocomplete="cc-exp"', problem, echo.expiry)}
${input('cvc', 'Security code (CVC)', 'inputmode="numeric" autocomplete="cc-csc"', problem)}
<button class="pay" type="submit" name="action" value="pay">Pay ${escapeHtml(currency)} ${escapeHtml(value)}</button>
<button class="cancel" type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>
<p><small>Reference ${escapeHtml(checkout.requestReferenceNumber)}</small></p>
</main>`
}

/** A page that only tells the buyer something: a heading, the message, optional details and a link back to the shop. */
export function messageBody(heading: string, message: string, details: string[] = [], back?: string): string {
  return `<main>
<h2>${escapeHtml(heading)}</h2>
<p class="message" role="status">${escapeHtml(message)}</p>
${details.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
${back ? `<p><a href="${escapeHtml(back)}">Back to the shop</a></p>` : ''}
</main>`
}

/** Where a buyer whose payment failed goes back to: the shop's failure page, else its cancel page. */
export function shopAddress(checkout: StoredCheckout): string | undefined {
  return checkout.redirectUrl?.failure ?? checkout.redirectUrl?.cancel
}

/** The declined page: what was not paid, that nothing was charged, and the way back to the shop. */
export function declinedBody(checkout: StoredCheckout, message: string): string {
  const amount = `${checkout.totalAmount.currency} ${checkout.totalAmount.value}`
  return messageBody('Payment declined', message, [`${amount} was not charged.`, `Reference ${checkout.requestReferenceNumber}.`], shopAddress(checkout))
}

const OUTCOME_HEADINGS = new Map([
  ['PAYMENT_SUCCESS', 'Already paid'],
  ['REFUNDED', 'Paid and refunded'],
  ['VOIDED', 'Payment cancelled by the shop'],
  ['PAYMENT_FAILED', 'Payment declined'],
  ['PAYMENT_CANCELLED', 'Checkout cancelled'],
  ['PAYMENT_EXPIRED', 'Checkout expired'],
])

/** The heading of the page that says what became of a checkout. */
export function outcomeHeading(checkout: StoredCheckout): string {
  return OUTCOME_HEADINGS.get(checkout.paymentStatus ?? '') ?? 'Not payable'
}

/** What became of a checkout that can no longer be paid, in words a buyer reads (no status codes). */
export function outcomeBody(checkout: StoredCheckout): string {
  const amount = `${checkout.totalAmount.currency} ${checkout.totalAmount.value}`
  const reference = `Reference ${checkout.requestReferenceNumber}.`
  const card = checkout.paymentDetails
    ? `${SCHEME_NAMES.get(checkout.paymentDetails.scheme) ?? 'Card'} ending in ${checkout.paymentDetails.last4}`
    : undefined
  switch (checkout.paymentStatus) {
    case 'PAYMENT_SUCCESS': {
      const refunded =
        Number(checkout.refundedAmount ?? 0) > 0 ? [`${checkout.totalAmount.currency} ${checkout.refundedAmount} has been refunded.`] : []
      return messageBody('Already paid', 'This checkout has already been paid, so it can no longer be paid again.', [
        `${amount} paid${card ? ` with ${card}` : ''}.`,
        ...refunded,
        ...(checkout.receiptNumber ? [`Receipt ${checkout.receiptNumber}.`] : []),
        reference,
      ])
    }

    case 'REFUNDED': {
      return messageBody('Paid and refunded', 'This checkout was paid and then refunded in full; it can no longer be paid.', [reference])
    }

    case 'VOIDED': {
      return messageBody(
        'Payment cancelled by the shop',
        'The shop cancelled this payment and the card was not charged; it can no longer be paid.',
        [reference],
      )
    }

    case 'PAYMENT_FAILED': {
      return declinedBody(checkout, 'The card was declined, so this checkout can no longer be paid. Ask the shop for a new checkout to try again.')
    }

    case 'PAYMENT_CANCELLED': {
      return messageBody('Checkout cancelled', 'This checkout was cancelled and can no longer be paid. Ask the shop for a new checkout.', [
        reference,
      ])
    }

    case 'PAYMENT_EXPIRED': {
      return messageBody('Checkout expired', 'This checkout has expired: it could be paid for one hour. Ask the shop for a new checkout.', [
        reference,
      ])
    }

    default: {
      return messageBody('Not payable', 'This checkout can no longer be paid.', [reference])
    }
  }
}
