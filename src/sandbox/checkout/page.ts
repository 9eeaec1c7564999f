/**
 * The hosted payment page of the sandbox: `GET <origin>/checkout/pay/<id>` shows the checkout
 * (title, logo, icons and button colour from the customization) with a card form that POSTs
 * `application/x-www-form-urlencoded` back to the same address. Test cards decide the outcome;
 * the page then sends the buyer (303) to the merchant's success, failure or cancel URL and
 * raises the matching event (CHECKOUT_SUCCESS / CHECKOUT_FAILURE / CHECKOUT_DROPOUT).
 *
 * A mistyped card (wrong length, failed Luhn check, bad expiry or CVC) or an expired one is
 * refused on the form itself, as a real hosted page refuses it before asking the card's issuer:
 * the checkout stays payable and the buyer fixes the field. Only a card the issuer would see
 * can be declined.
 *
 * Plain functions over the sandbox context, so they are tested without a server. The card
 * number and CVC are used to decide the outcome and then dropped: only the scheme and the last
 * four digits are kept.
 */
import type {SandboxContext} from '../types.js'
import type {StoredCheckout} from './state.js'

import {checkoutService} from '../../services/checkout/operations.js'
import {
  cardScheme,
  CVC_PATTERN,
  isCardExpired,
  lastFour,
  normalizeCardNumber,
  parseExpiry,
  passesLuhn,
  SUCCEEDING_CARDS,
} from '../../services/checkout/test-cards.js'
import {SandboxError} from '../types.js'
import {CHECKOUT_PREFIX, checkoutState, findCheckout, saveCheckout} from './handlers.js'
import {declinedBody, formBody, type FormEcho, type FormProblem, layout, messageBody, outcomeBody, outcomeHeading} from './page-html.js'

export interface PageReply {
  status: number
  html?: string
  /** For a 303: where the buyer goes next. */
  location?: string
}

/**
 * Sent with every page: never cached (it may echo a card number), never framed (no clickjacking
 * of the pay button), no script at all, nothing of the page's address leaked to the merchant.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
}

/** A page; its heading (an error, an outcome) leads the title, so the tab and a screen reader say it first. */
async function page(ctx: SandboxContext, status: number, body: string, heading?: string): Promise<PageReply> {
  return {status, html: layout(await checkoutState(ctx).customization.get(), body, heading)}
}

async function formPage(ctx: SandboxContext, checkout: StoredCheckout, status = 200, problem?: FormProblem, echo?: FormEcho): Promise<PageReply> {
  // the path of the tenant's own page (its origin() ends in /t/<id>): the form posts back to the tenant it came from
  const action = `${ctx.origin().replace(/^[a-z]+:\/\/[^/]*/i, '')}${CHECKOUT_PREFIX}/pay/${encodeURIComponent(checkout.id)}`
  return page(ctx, status, formBody(checkout, action, problem, echo), problem ? `Error: ${problem.message}` : undefined)
}

async function outcomePage(ctx: SandboxContext, checkout: StoredCheckout): Promise<PageReply> {
  return page(ctx, 409, outcomeBody(checkout), outcomeHeading(checkout))
}

async function lookup(ctx: SandboxContext, checkoutId: string): Promise<PageReply | StoredCheckout> {
  try {
    return await findCheckout(ctx, checkoutId)
  } catch (error) {
    if (error instanceof SandboxError && error.status === 404) {
      return page(ctx, 404, messageBody('Checkout not found', `There is no checkout ${checkoutId}. Check the link the shop gave you.`), 'Checkout not found')
    }

    throw error
  }
}

/** GET: the page with its card form, or what became of a checkout that cannot be paid. */
export async function showPaymentPage(ctx: SandboxContext, checkoutId: string): Promise<PageReply> {
  const found = await lookup(ctx, checkoutId)
  if (!('id' in found)) return found
  if (found.status !== 'CREATED') return outcomePage(ctx, found)
  return formPage(ctx, found)
}

async function finish(
  ctx: SandboxContext,
  checkout: StoredCheckout,
  event: 'CHECKOUT_DROPOUT' | 'CHECKOUT_FAILURE' | 'CHECKOUT_SUCCESS',
  target: string | undefined,
  heading: string,
  message: string,
): Promise<PageReply> {
  await saveCheckout(ctx, checkout)
  // paid, declined or cancelled, it can no longer expire: its expiry job goes (no work falls due for it)
  await ctx.unschedule(checkoutService.name, checkout.id)
  await ctx.emit({type: event, checkoutId: checkout.id, payload: structuredClone(checkout)})
  if (target) return {status: 303, location: target}
  const body = event === 'CHECKOUT_FAILURE' ? declinedBody(checkout, message) : messageBody(heading, message, [`Reference ${checkout.requestReferenceNumber}.`])
  return page(ctx, 200, body, heading)
}

/** Why the typed card cannot even be sent to its issuer, and which field to fix; undefined when it can. */
function cardProblem(cardNumber: string, expiryText: string, cvc: string, now: Date): FormProblem | undefined {
  const number = normalizeCardNumber(cardNumber)
  if (!number) return {field: 'cardNumber', message: 'Enter a card number of 13 to 19 digits.'}
  if (!passesLuhn(number)) return {field: 'cardNumber', message: 'This card number is not valid: check it for a mistyped digit.'}
  const expiry = parseExpiry(expiryText)
  if (!expiry) return {field: 'expiry', message: 'Enter the expiry date as MM/YY.'}
  if (!CVC_PATTERN.test(cvc)) return {field: 'cvc', message: 'Enter the 3 or 4 digit security code from the back of the card.'}
  if (isCardExpired(expiry, now)) {
    const shown = `${String(expiry.month).padStart(2, '0')}/${String(expiry.year % 100).padStart(2, '0')}`
    return {field: 'expiry', message: `This card expired at the end of ${shown}. Use a card that is still valid.`}
  }

  return undefined
}

/** POST: the buyer pays or cancels. The form is `{action: pay|cancel, cardNumber, expiry, cvc}`. */
export async function submitPaymentForm(ctx: SandboxContext, checkoutId: string, form: Record<string, unknown>): Promise<PageReply> {
  const found = await lookup(ctx, checkoutId)
  if (!('id' in found)) return found
  const checkout = found
  if (checkout.status !== 'CREATED') return outcomePage(ctx, checkout)
  const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '')
  const now = ctx.clock.now()

  if (field('action') === 'cancel') {
    checkout.status = 'COMPLETED'
    checkout.paymentStatus = 'PAYMENT_CANCELLED'
    checkout.updatedAt = now.toISOString()
    return finish(
      ctx,
      checkout,
      'CHECKOUT_DROPOUT',
      checkout.redirectUrl?.cancel,
      'Checkout cancelled',
      'You cancelled this payment. Nothing was charged.',
    )
  }

  const echo = {cardNumber: field('cardNumber'), expiry: field('expiry')}
  if (field('action') !== 'pay' && field('action') !== '') return formPage(ctx, checkout, 400, {message: 'Unknown action.'}, echo)
  const problem = cardProblem(field('cardNumber'), field('expiry'), field('cvc'), now)
  if (problem) return formPage(ctx, checkout, 400, problem, echo)

  const number = normalizeCardNumber(field('cardNumber'))!
  const scheme = cardScheme(number)
  const approved = SUCCEEDING_CARDS.has(number)
  checkout.status = 'COMPLETED'
  checkout.paymentType = 'CREDIT_CARD'
  checkout.paymentScheme = scheme
  checkout.updatedAt = now.toISOString()
  checkout.paymentDetails = {scheme, last4: lastFour(number), ...(approved ? {paymentAt: now.toISOString()} : {})}
  if (approved) {
    checkout.paymentStatus = 'PAYMENT_SUCCESS'
    checkout.receiptNumber = ctx.hex(12)
    return finish(ctx, checkout, 'CHECKOUT_SUCCESS', checkout.redirectUrl?.success, 'Payment received', 'Payment received. Thank you.')
  }

  checkout.paymentStatus = 'PAYMENT_FAILED'
  return finish(
    ctx,
    checkout,
    'CHECKOUT_FAILURE',
    checkout.redirectUrl?.failure,
    'Payment declined',
    "The card's issuer declined this payment. Nothing was charged; ask the shop for a new checkout to try another card.",
  )
}
