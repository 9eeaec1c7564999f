/**
 * Checks of a checkout request before it is sent: the money adds up (in integer cents), and a
 * reference to tell a merchant's checkouts apart. Reading one from a command's flags is the CLI's
 * (src/cli/checkout/request-flags.ts).
 */
import {randomBytes} from 'node:crypto'

import {UsageError} from '../../errors.js'
import {type Cents, centsOf, formatCents} from './money.js'

/** `opsctl-20261121-5f3a9c`: unique enough to tell a merchant's checkouts apart. */
export function generateReference(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '')
  return `opsctl-${day}-${randomBytes(4).toString('hex')}`
}

const detailCents = (details: Record<string, unknown> | undefined, key: string): Cents | undefined =>
  details && details[key] !== undefined ? centsOf(details[key]) : undefined

/**
 * Checks that a request's money adds up, in cents: each item's line total is its unit amount
 * times its quantity (when both are given and the item has no discount details), and the items'
 * line totals add up to the total (`subtotal - discount + serviceCharge + shippingFee + tax` when
 * the total has details). Items without any amount are not counted and skip the total check.
 */
export function checkRequestTotals(request: {totalAmount?: {value?: unknown; details?: Record<string, unknown>}; items?: unknown[]}): void {
  const total = centsOf(request.totalAmount?.value)
  if (total === undefined) return
  let sum: Cents = 0n
  let complete = true
  for (const [i, raw] of (request.items ?? []).entries()) {
    const item = (raw ?? {}) as {
      name?: string
      quantity?: string
      amount?: {value?: unknown; details?: Record<string, unknown>}
      totalAmount?: {value?: unknown}
    }
    const label = `items[${i}]${item.name ? ` (${item.name})` : ''}`
    const unit = centsOf(item.amount?.value)
    const quantity = item.quantity && /^[1-9]\d*$/.test(item.quantity) ? BigInt(item.quantity) : 1n
    const line = centsOf(item.totalAmount?.value)
    if (unit !== undefined && line !== undefined && !item.amount?.details && unit * quantity !== line) {
      throw new UsageError(
        `${label}: ${formatCents(unit)} x ${quantity} is ${formatCents(unit * quantity)}, but its totalAmount is ${formatCents(line)}`,
      )
    }

    const value = line ?? (unit === undefined ? undefined : unit * quantity)
    if (value === undefined) complete = false
    else sum += value
  }

  if (!complete || (request.items ?? []).length === 0) return
  const details = request.totalAmount?.details
  const subtotal = detailCents(details, 'subtotal')
  if (subtotal !== undefined && subtotal !== sum) {
    throw new UsageError(`The items add up to ${formatCents(sum)} but totalAmount.details.subtotal is ${formatCents(subtotal)}`)
  }

  const expected =
    sum -
    (detailCents(details, 'discount') ?? 0n) +
    (detailCents(details, 'serviceCharge') ?? 0n) +
    (detailCents(details, 'shippingFee') ?? 0n) +
    (detailCents(details, 'tax') ?? 0n)
  if (expected !== total) {
    const how = details ? ' (items - discount + service charge + shipping fee + tax)' : ''
    throw new UsageError(`The items add up to ${formatCents(expected)}${how} but totalAmount.value is ${formatCents(total)}`)
  }
}
