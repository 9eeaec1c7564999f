/**
 * The audit log read as the merchant's history: entries selected by outcome, operation, checkout
 * and time, and the checkouts created from this machine (the service has no list endpoint) with
 * what the log knows of each: its state as far as the changes applied from here tell, and the last
 * void or refund attempted. Pure functions over the lines of ./log.ts.
 */
import type {OperationId} from '../services/operation-ids.js'
import type {AuditEntry} from './log.js'

import {centsOf, formatCents} from '../services/checkout/money.js'

export interface AuditFilter {
  profile?: string
  outcome?: string
  operation?: string
  checkoutId?: string
  /** Entries at or after this instant. */
  since?: Date
  /** Entries before this instant. */
  until?: Date
}

/** Entries that match every given criterion, oldest first (as written). */
export function selectEntries(entries: readonly AuditEntry[], filter: AuditFilter): AuditEntry[] {
  return entries.filter(entryFilter(filter))
}

/** Whether an entry matches every given criterion of `filter`. */
export function entryFilter(filter: AuditFilter): (e: AuditEntry) => boolean {
  const since = filter.since?.getTime()
  const until = filter.until?.getTime()
  return (e) => {
    if (filter.profile !== undefined && e.profile !== filter.profile) return false
    if (filter.outcome !== undefined && e.outcome !== filter.outcome) return false
    if (filter.operation !== undefined && e.operation !== filter.operation) return false
    if (filter.checkoutId !== undefined && e.checkoutId !== filter.checkoutId) return false
    if (since === undefined && until === undefined) return true
    const at = Date.parse(e.time)
    if (Number.isNaN(at)) return false
    return (since === undefined || at >= since) && (until === undefined || at < until)
  }
}

/** The operations that change a checkout's money after it was created. */
const MONEY_CHANGES: ReadonlySet<OperationId> = new Set<OperationId>(['voidCheckout', 'refundCheckout'])
const CREATION: OperationId = 'initiateCheckout'

/** An applied creation `createdCheckouts` lists: of `profile` (any when undefined), a test run's only with `includeRuns`. */
function isListedCreation(e: AuditEntry, profile: string | undefined, includeRuns = false): boolean {
  if (e.operation !== CREATION || e.outcome !== 'applied' || !e.checkoutId) return false
  if (profile !== undefined && e.profile !== profile) return false
  // smoke's and scenarios' own checkouts are not the merchant's (AuditEntry.run)
  return e.run === undefined || includeRuns
}

/**
 * The checkouts the shop should know of that this machine created, voided or refunded with
 * `profile` (applied, or of unknown outcome: the service may have it), outside test runs.
 */
export function changedHere(profile: string): (e: AuditEntry) => boolean {
  return (e) =>
    e.profile === profile &&
    e.run === undefined &&
    e.checkoutId !== undefined &&
    (e.operation === CREATION || MONEY_CHANGES.has(e.operation as OperationId)) &&
    (e.outcome === 'applied' || e.outcome === 'unknown')
}

/**
 * One checkout created from this machine, flat so that every format (JSON, ndjson, table, CSV)
 * has the same fields; a value not known is null, never left out. `checkout list` reads `state`,
 * `stateAt` and `createdAt` from the service (`source: service`); from the log alone (`--no-refresh`,
 * or a checkout the service no longer knows) they are what this machine's own changes tell
 * (`source: local`, times on this machine's clock).
 */
export interface CheckoutSummary {
  checkoutId: string
  amount: null | string
  currency: null | string
  /** service: paid, declined, expired, voided, cancelled, pending, refunded <amount>; local: created, voided, refunded <amount> */
  state: string
  /** When the state began: the service's time of it, or the local time of the change applied from here (null for created). */
  stateAt: null | string
  createdAt: string
  reference: null | string
  /** The last void or refund attempted from here and how it ended ("void refused by rule PY0073"); null if none. */
  lastAttempt: null | string
  lastAttemptAt: null | string
  /** Where state, stateAt and createdAt come from, and so on whose clock the times are. */
  source: 'local' | 'service'
}

/** "refund applied", "void refused by rule PY0073", "void applied (reconciled)". */
function attemptText(e: AuditEntry): string {
  const what = e.operation === 'voidCheckout' ? 'void' : 'refund'
  return [what, e.outcome, e.code, e.reconciled ? '(reconciled)' : undefined].filter(Boolean).join(' ')
}

/**
 * Checkouts whose creation was applied from this machine (for one profile when `profile` is given),
 * newest first, without those a smoke or scenario run created unless `includeRuns`. The state counts only what was applied (a refused second void leaves a voided
 * checkout voided); the last attempt is shown apart, whatever its outcome.
 */
export function createdCheckouts(
  entries: readonly AuditEntry[],
  profile?: string,
  options: {includeRuns?: boolean} = {},
): CheckoutSummary[] {
  const created = new Map<string, CheckoutSummary & {refundedCents: bigint}>()
  for (const e of entries) {
    if (profile !== undefined && e.profile !== profile) continue
    if (!e.checkoutId) continue
    if (e.operation === CREATION && e.outcome === 'applied') {
      if (!isListedCreation(e, profile, options.includeRuns)) continue
      created.set(e.checkoutId, {
        checkoutId: e.checkoutId,
        amount: e.amount?.value ?? null,
        currency: e.amount?.currency ?? null,
        state: 'created',
        stateAt: null,
        createdAt: e.time,
        reference: e.reference ?? null,
        lastAttempt: null,
        lastAttemptAt: null,
        source: 'local',
        refundedCents: 0n,
      })
      continue
    }

    const checkout = created.get(e.checkoutId)
    if (!checkout || !MONEY_CHANGES.has(e.operation as OperationId)) continue
    checkout.lastAttempt = attemptText(e)
    checkout.lastAttemptAt = e.time
    if (e.outcome !== 'applied') continue
    checkout.stateAt = e.time
    if (e.operation === 'voidCheckout') {
      checkout.state = 'voided'
    } else {
      checkout.refundedCents += centsOf(e.amount?.value) ?? 0n
      checkout.state = `refunded ${formatCents(checkout.refundedCents)}`
    }
  }

  // Newest first; two created in the same millisecond keep the log's order, reversed.
  return [...created.values()]
    .reverse()
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .map(({refundedCents: _, ...summary}) => summary)
}

/**
 * For a read of the log from its newest end (RecentQuery.enough of ./read.ts): says stop once the
 * newest `count` checkouts createdCheckouts would list have been read (their voids and refunds come
 * after them in the log, so they were read first) and the entry is older than the oldest of them
 * by `marginMs` (a creation written while the clock was behind is still found).
 */
export function newestCreated(
  count: number,
  marginMs: number,
  profile?: string,
  options: {includeRuns?: boolean} = {},
): (e: AuditEntry) => boolean {
  let found = 0
  // The oldest time of the newest `count` creations read.
  let oldest = Number.POSITIVE_INFINITY
  return (e) => {
    const at = Date.parse(e.time)
    if (found >= count && at < oldest - marginMs) return true
    if (found >= count || !isListedCreation(e, profile, options.includeRuns)) return false
    found++
    if (!Number.isNaN(at)) oldest = Math.min(oldest, at)
    return false
  }
}
