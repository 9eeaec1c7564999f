/**
 * The audit log read as the merchant's history: entries selected by outcome, operation, checkout
 * and time, and the checkouts created from this machine (the service has no list endpoint) with
 * the last void or refund attempted on each. Pure functions over the lines of ./log.ts.
 */
import type {AuditEntry} from './log.js'

export interface AuditFilter {
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
  const since = filter.since?.getTime()
  const until = filter.until?.getTime()
  return entries.filter((e) => {
    if (filter.outcome !== undefined && e.outcome !== filter.outcome) return false
    if (filter.operation !== undefined && e.operation !== filter.operation) return false
    if (filter.checkoutId !== undefined && e.checkoutId !== filter.checkoutId) return false
    if (since === undefined && until === undefined) return true
    const at = Date.parse(e.time)
    if (Number.isNaN(at)) return false
    return (since === undefined || at >= since) && (until === undefined || at < until)
  })
}

/** The operations that change a checkout's money after it was created. */
const MONEY_CHANGES = new Set(['voidCheckout', 'refundCheckout'])
const CREATION = 'initiateCheckout'

export interface LastChange {
  operation: string
  outcome: string
  time: string
  code?: string
  refundId?: string
  reconciled?: boolean
}

export interface CreatedCheckout {
  checkoutId: string
  amount?: string
  currency?: string
  /** When it was created from this machine (the audit line's time). */
  createdAt: string
  reference?: string
  profile: string
  /** The last void or refund attempted on it from this machine, whatever its outcome; null if none. */
  lastChange: LastChange | null
}

/**
 * Checkouts whose creation was applied from this machine (for one profile when `profile` is given),
 * newest first, each with the last void or refund line about it.
 */
export function createdCheckouts(entries: readonly AuditEntry[], profile?: string): CreatedCheckout[] {
  const created = new Map<string, CreatedCheckout>()
  for (const e of entries) {
    if (profile !== undefined && e.profile !== profile) continue
    if (!e.checkoutId) continue
    if (e.operation === CREATION && e.outcome === 'applied') {
      created.set(e.checkoutId, {
        checkoutId: e.checkoutId,
        amount: e.amount?.value,
        currency: e.amount?.currency,
        createdAt: e.time,
        reference: e.reference,
        profile: e.profile,
        lastChange: null,
      })
      continue
    }

    const checkout = created.get(e.checkoutId)
    if (checkout && MONEY_CHANGES.has(e.operation)) {
      checkout.lastChange = {
        operation: e.operation,
        outcome: e.outcome,
        time: e.time,
        ...(e.code ? {code: e.code} : {}),
        ...(e.refundId ? {refundId: e.refundId} : {}),
        ...(e.reconciled ? {reconciled: true} : {}),
      }
    }
  }

  // Newest first; two created in the same millisecond keep the log's order, reversed.
  return [...created.values()].reverse().sort((a, b) => b.createdAt.localeCompare(a.createdAt))
}
