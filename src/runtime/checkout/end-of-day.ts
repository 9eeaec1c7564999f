/**
 * `checkout reconcile`: the shop's file read whole and checked before the first request (bounded by
 * rows and bytes: ../file-input.ts), then each checkout and its refunds read, at most `concurrency`
 * rows at once (a 429 waits its Retry-After in the transport's retries, as every read does), and
 * one verdict a row (src/services/checkout/end-of-day.ts).
 *
 * A read that fails is that row's verdict `error` with the reason, never a guess: credentials
 * refused stop the run (exit 3); any other failure (a 5xx, an answer that cannot be read, the
 * network) is kept on the row and decides the exit code (6, or 7 for the network).
 */
import type {ServiceClient} from '../../http/client.js'

import {changedHere} from '../../audit/history.js'
import {readAudit} from '../../audit/read.js'
import {ApiError, ExitCode, OpsError, UsageError} from '../../errors.js'
import {
  type Money,
  type ServiceView,
  serviceView,
  SHOP_COLUMNS,
  shopMoney,
  shopRow,
  type ShopRow,
  Totals,
  type Verdict,
  verdictOf,
} from '../../services/checkout/end-of-day.js'
import {readCheckout} from '../../services/checkout/money-change.js'
import {formatCents} from '../../services/checkout/money.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {eachLimited} from '../bulk/pool.js'
import {type InputLimits, openSource, readRecords} from '../file-input.js'

/** 50,000 orders of about 100 bytes; a record (id, amounts, state, reference) fits in 1 KiB. */
export const RECONCILE_LIMITS: InputLimits = {maxBytes: 16 * 1024 * 1024, maxRecordLength: 1024, maxRows: 50_000}

export interface ShopSide {
  state: string
  amount: string
  refunded: string
  currency: string
}

export interface ServiceSide {
  state: string
  stateAt?: string
  currency: string
  total: string
  paid: string
  voided: string
  refunded: string
}

export interface DayRow {
  /** The row's line in the file (a `not-in-file` row has none). */
  line?: number
  checkoutId: string
  reference?: string
  verdict: Verdict
  /** Why the row is `error` (the read that failed), or what `unknown` means. */
  reason?: string
  shop: null | ShopSide
  service: null | ServiceSide
}

export interface DayTotal {
  currency: string
  side: 'service' | 'shop'
  rows: number
  paid: string
  voided: string
  refunded: string
  net: string
}

export interface DayDocument {
  rows: DayRow[]
  totals: DayTotal[]
}

export interface DayResult {
  document: DayDocument
  counts: Record<Verdict, number>
  /** 0 all match, 1 some differ, 6/7 a read failed (the first such row named in `failed`). */
  exitCode: number
  failed?: DayRow
}

/**
 * The shop's rows, read and checked whole before anything is sent: a malformed row, the same
 * checkout twice, or a file over its bounds refuses the file (exit 2).
 */
export async function readShopFile(path: string, idProblem: (id: string) => string | undefined): Promise<ShopRow[]> {
  const source = await openSource(path)
  const shape = {columns: SHOP_COLUMNS, example: 'checkoutId,amount,currency,state[,reference,refunded]', required: ['checkoutId', 'amount', 'currency', 'state']}
  const rows: ShopRow[] = []
  const seen = new Map<string, number>()
  for await (const record of readRecords(source.open(), source.label, shape, RECONCILE_LIMITS)) {
    const checked = 'problem' in record ? record : shopRow(record.line, record.fields, idProblem)
    if ('problem' in checked) throw new UsageError(`${source.label}: line ${record.line}: ${checked.problem}; nothing was sent`)
    const first = seen.get(checked.row.checkoutId)
    if (first !== undefined) throw new UsageError(`${source.label}: line ${record.line}: checkout ${checked.row.checkoutId} is also on line ${first}; nothing was sent`)
    seen.set(checked.row.checkoutId, record.line)
    rows.push(checked.row)
  }

  if (rows.length === 0) throw new UsageError(`${source.label} has no rows; nothing was sent`)
  return rows
}

const side = (money: Money) => ({paid: formatCents(money.paid), refunded: formatCents(money.refunded), voided: formatCents(money.voided)})

function serviceSide(view: ServiceView): ServiceSide {
  return {
    currency: view.currency,
    state: view.state,
    ...(view.stateAt ? {stateAt: view.stateAt} : {}),
    total: formatCents(view.total),
    ...side(view),
  }
}

/** Differences first (a failed read first of all), then by line. */
const ORDER: Record<Verdict, number> = {error: 0, unknown: 1, 'state-differs': 2, 'amount-differs': 3, 'not-in-file': 4, match: 5}

/** The exit code of a read that failed (7 for the network, else 6), or undefined when the run must stop (credentials, or not an error opsctl knows). */
function failedRead(error: unknown): {code: number; reason: string} | undefined {
  if (!(error instanceof OpsError) || error.exitCode === ExitCode.Auth) return undefined
  return {code: error.exitCode === ExitCode.Network ? ExitCode.Network : ExitCode.Server, reason: error.message}
}

export interface DayOptions {
  concurrency: number
  /** Checkouts the file does not list that this machine changed (`--audit`): read like the others, verdict `not-in-file`. */
  notInFile?: readonly string[]
  onRow?(done: number, total: number): void
}

/**
 * The checkouts this machine created, voided or refunded with `profile` since `since` (the audit
 * log's `changedHere`) that the file does not list; oldest first. Read from the log's newest end.
 */
export async function changedHereNotListed(configDir: string, profile: string, since: Date, listed: ReadonlySet<string>): Promise<string[]> {
  const {entries} = await readAudit(configDir, {match: changedHere(profile), since: since.getTime()})
  const ids = entries.map((e) => e.checkoutId).filter((id): id is string => id !== undefined && !listed.has(id))
  return [...new Set(ids)]
}

/** Reads each row's checkout and refunds and gives its verdict; the document, counts and exit code. */
export async function reconcileDay(client: Pick<ServiceClient, 'call'>, rows: readonly ShopRow[], options: DayOptions): Promise<DayResult> {
  const extra = options.notInFile ?? []
  const total = rows.length + extra.length
  const results: DayRow[] = Array.from({length: total})
  const shopTotals = new Totals()
  const serviceTotals = new Totals()
  /** Every read that failed failed on the network (exit 7 rather than 6). */
  let onlyNetwork = true
  let done = 0
  async function* indexed() {
    for (const [index, row] of rows.entries()) yield {checkoutId: row.checkoutId, index, row}
    for (const [index, checkoutId] of extra.entries()) yield {checkoutId, index: rows.length + index, row: undefined}
  }

  await eachLimited(indexed(), options.concurrency, async ({checkoutId, index, row}) => {
    let base: Omit<DayRow, 'service' | 'verdict'> = {checkoutId, shop: null}
    if (row) {
      const shop: ShopSide = {amount: formatCents(row.amount), currency: row.currency, refunded: formatCents(row.refunded), state: row.state}
      base = {checkoutId, line: row.line, ...(row.reference ? {reference: row.reference} : {}), shop}
      shopTotals.add(row.currency, shopMoney(row))
    }

    try {
      const {checkout, now} = await readCheckout(client, checkoutId)
      const refunds = (await client.call(checkoutOps.listRefunds, {params: {checkoutId}})).data
      const view = serviceView(checkout, refunds, now)
      serviceTotals.add(view.currency, view)
      results[index] = {...base, service: serviceSide(view), verdict: row ? verdictOf(row, view) : 'not-in-file'}
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.operationId === checkoutOps.getCheckout.id) {
        const verdict = row ? 'unknown' : 'not-in-file'
        results[index] = {...base, reason: 'the service does not know this checkout (404)', service: null, verdict}
      } else {
        const failed = failedRead(error)
        if (!failed) throw error
        results[index] = {...base, reason: failed.reason, service: null, verdict: 'error'}
        onlyNetwork &&= failed.code === ExitCode.Network
      }
    }

    options.onRow?.(++done, total)
  })

  const sorted = [...results].sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict] || (a.line ?? 0) - (b.line ?? 0))
  const counts = Object.fromEntries(Object.keys(ORDER).map((v) => [v, 0])) as Record<Verdict, number>
  for (const row of sorted) counts[row.verdict]++
  const totals = (name: 'service' | 'shop', sums: Totals): DayTotal[] =>
    sums.list().map((t) => ({currency: t.currency, net: formatCents(t.net), rows: t.rows, side: name, ...side(t)}))
  const document = {rows: sorted, totals: [...totals('shop', shopTotals), ...totals('service', serviceTotals)].sort((a, b) => a.currency.localeCompare(b.currency))}
  const firstFailed = sorted.find((r) => r.verdict === 'error')
  if (firstFailed) {
    return {counts, document, exitCode: onlyNetwork ? ExitCode.Network : ExitCode.Server, failed: firstFailed}
  }

  return {counts, document, exitCode: sorted.every((r) => r.verdict === 'match') ? 0 : 1}
}
