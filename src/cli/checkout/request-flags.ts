/**
 * Building a checkout request from `opsctl checkout create` flags (or completing one read from
 * `--data`), with the money checks done in integer cents before anything is sent; amount flags of
 * other commands are read here too.
 */
import type {CheckoutRequest} from '../../services/checkout/operations.js'

import {UsageError} from '../../errors.js'
import {type Cents, formatCents, lineTotal, MoneyError, parseAmount, parsePositiveAmount, parseQuantity} from '../../services/checkout/money.js'
import {generateReference} from '../../services/checkout/request.js'

export interface CheckoutInput {
  amount?: string
  currency: string
  /** `name:qty:unit-price[:code]`, repeatable */
  items?: string[]
  ref?: string
  successUrl?: string
  failureUrl?: string
  cancelUrl?: string
  buyer?: {firstName?: string; lastName?: string; email?: string; phone?: string}
  metadata?: Record<string, unknown>
}

/** Runs a money parser and turns its error into a usage error (exit 2, nothing sent). */
function usage<T>(fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    if (error instanceof MoneyError) throw new UsageError(error.message)
    throw error
  }
}

interface ParsedItem {
  item: CheckoutRequest['items'][number]
  line: Cents
}

/**
 * `--item "name:qty:unit-price[:code]"`. The name may itself contain colons: the numeric fields
 * are read from the right.
 */
export function parseItemSpec(spec: string, index: number): ParsedItem {
  const flag = `--item #${index + 1} ("${spec}")`
  const parts = spec.split(':')
  const isQty = (s: string | undefined) => s !== undefined && /^\s*\d+\s*$/.test(s)
  const isPrice = (s: string | undefined) => s !== undefined && /^\s*[-+]?\d*\.?\d+\s*$/.test(s)
  let name: string
  let qty: string
  let price: string
  let code: string | undefined
  const n = parts.length
  // Exactly 3 or 4 parts: the plain forms. More: the name has colons; read the numbers from the right.
  const withCode = n === 4 || (n > 4 && isQty(parts[n - 3]) && isPrice(parts[n - 2]) && !isPrice(parts[n - 1]))
  if (n < 3 || (withCode ? !isQty(parts[n - 3]) || !isPrice(parts[n - 2]) : !isQty(parts[n - 2]) || !isPrice(parts[n - 1]))) {
    throw new UsageError(`${flag}: expected name:quantity:unit-price[:code], e.g. "Tea:2:75.50:TEA-01"`)
  }

  if (withCode) {
    ;[qty, price, code] = parts.slice(-3)
    name = parts.slice(0, -3).join(':')
  } else {
    ;[qty, price] = parts.slice(-2)
    name = parts.slice(0, -2).join(':')
  }

  name = name.trim()
  if (!name) throw new UsageError(`${flag}: the item name is empty`)
  const quantity = usage(() => parseQuantity(qty, `${flag} quantity`))
  const unit = usage(() => parsePositiveAmount(price, `${flag} unit price`))
  const line = lineTotal(unit, quantity)
  const item: ParsedItem['item'] = {
    name,
    ...(code?.trim() ? {code: code.trim()} : {}),
    quantity: quantity.toString(),
    amount: {value: formatCents(unit)},
    totalAmount: {value: formatCents(line)},
  }
  return {item, line}
}

/** Builds the Initiate checkout request from flags: amounts in cents, item totals checked. */
export function buildCheckoutRequest(input: CheckoutInput, now = new Date()): CheckoutRequest {
  const currency = input.currency.trim().toUpperCase()
  const ref = input.ref?.trim() || generateReference(now)
  const parsed = (input.items ?? []).map((spec, i) => parseItemSpec(spec, i))
  const itemsTotal = parsed.reduce((sum, p) => sum + p.line, 0n)
  let total: Cents
  if (input.amount === undefined) {
    if (parsed.length === 0) throw new UsageError('Nothing to charge: pass --amount, one or more --item, or --data')
    total = itemsTotal
  } else {
    total = usage(() => parsePositiveAmount(input.amount!, '--amount'))
    if (parsed.length > 0 && itemsTotal !== total) {
      throw new UsageError(
        `The items add up to ${formatCents(itemsTotal)} ${currency} but --amount is ${formatCents(total)} ${currency}; fix one of them (or leave --amount out to use the items' total)`,
      )
    }
  }

  const items =
    parsed.length > 0
      ? parsed.map((p) => p.item)
      : [{name: `Order ${ref}`, quantity: '1', amount: {value: formatCents(total)}, totalAmount: {value: formatCents(total)}}]

  const redirectUrl = Object.fromEntries(
    Object.entries({success: input.successUrl, failure: input.failureUrl, cancel: input.cancelUrl}).filter(([, v]) => v !== undefined),
  )
  const b = input.buyer ?? {}
  const contact = Object.fromEntries(Object.entries({email: b.email, phone: b.phone}).filter(([, v]) => v !== undefined))
  const buyer = {
    ...(b.firstName === undefined ? {} : {firstName: b.firstName}),
    ...(b.lastName === undefined ? {} : {lastName: b.lastName}),
    ...(Object.keys(contact).length > 0 ? {contact} : {}),
  }

  return {
    totalAmount: {value: formatCents(total), currency},
    items,
    requestReferenceNumber: ref,
    ...(Object.keys(redirectUrl).length > 0 ? {redirectUrl} : {}),
    ...(Object.keys(buyer).length > 0 ? {buyer} : {}),
    ...(input.metadata && Object.keys(input.metadata).length > 0 ? {metadata: input.metadata} : {}),
  }
}

/** For `--data`: a missing reference is generated, like the flags do. */
export function completeRequest(data: unknown, now = new Date()): Record<string, unknown> {
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new UsageError('--data must be a JSON object (a checkout request)')
  const request = {...(data as Record<string, unknown>)}
  if (request.requestReferenceNumber === undefined) request.requestReferenceNumber = generateReference(now)
  return request
}

/** Parses an amount flag (`--amount` of a refund) into cents, as a usage error when malformed. */
export function amountFlag(value: string, flag: string): Cents {
  return usage(() => parsePositiveAmount(value, flag))
}

/** Any typed amount (zero allowed), as a usage error when malformed. */
export function anyAmountFlag(value: string, flag: string): Cents {
  return usage(() => parseAmount(value, flag))
}
