/**
 * How `checkout reconcile` shows its document: for people, a table of the rows (those that differ
 * first) with what each side says in a few words, then the totals per currency; for accounting
 * (`-o csv`, ndjson, TSV) every row with each side's fields in columns of their own.
 */
import type {DayRow, ServiceSide, ShopSide} from '../../runtime/checkout/end-of-day.js'
import type {View} from '../output/view.js'

import {CHECKOUT_ZONE} from './columns.js'

/** Every column of a row, for CSV and scripts. */
export const DAY_ROW_COLUMNS = [
  'line',
  'checkoutId',
  'reference',
  'verdict',
  'shop.state',
  'shop.amount',
  'shop.refunded',
  'shop.currency',
  'service.state',
  'service.total',
  'service.paid',
  'service.voided',
  'service.refunded',
  'service.currency',
  'service.stateAt',
  'reason',
]

export const DAY_VIEW: View = {
  columns: DAY_ROW_COLUMNS,
  layout: {checkoutId: {kind: 'id', priority: 1}, reason: {kind: 'reason', priority: 1}, verdict: {priority: 1}},
  list: 'rows',
  zone: CHECKOUT_ZONE,
}

/** The people's table: the id whole, the verdict, and each side in words (never cut: wrapped). */
export const DAY_PEOPLE_VIEW: View = {
  columns: ['checkoutId', 'verdict', 'shop', 'service'],
  layout: {checkoutId: {kind: 'id', priority: 1}, service: {kind: 'reason', priority: 1}, shop: {kind: 'reason', priority: 1}, verdict: {priority: 1}},
}

export const DAY_TOTALS_VIEW: View = {
  columns: ['currency', 'side', 'rows', 'paid', 'voided', 'refunded', 'net'],
  layout: {currency: {priority: 1}, net: {priority: 1}, paid: {priority: 1}, refunded: {priority: 1}, rows: {priority: 2}, side: {priority: 1}, voided: {priority: 1}},
}

const money = (state: string, total: string, refunded: string, currency: string) =>
  state === 'refunded' ? `refunded ${refunded} of ${total} ${currency}` : `${state} ${total} ${currency}`

export const shopWords = (shop: ShopSide) => money(shop.state, shop.amount, shop.refunded, shop.currency)
export const serviceWords = (service: ServiceSide) => money(service.state, service.total, service.refunded, service.currency)

/** One row in words: "paid 100.00 PHP" on each side; the reason where the service had no answer. */
export function peopleRow(row: DayRow): Record<string, string> {
  return {
    checkoutId: row.checkoutId,
    service: row.service ? serviceWords(row.service) : (row.reason ?? ''),
    shop: row.shop ? shopWords(row.shop) : '',
    verdict: row.verdict,
  }
}

/** The last line on stderr: how many rows of each verdict, and the first read that failed. */
export function closingLine(counts: Record<string, number>, rows: number, failed?: DayRow): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict}`)
  const line = `${rows} ${rows === 1 ? 'row' : 'rows'}: ${parts.join(', ')}`
  if (!failed) return line
  const where = failed.line === undefined ? 'from the audit log' : `line ${failed.line}`
  return `${line}. Reading checkout ${failed.checkoutId} (${where}) failed: ${failed.reason}; that row and any other marked error are not reconciled`
}
