/**
 * The paid checkouts `sandbox start --seed` creates, found again by their references (control
 * route `GET /__sandbox/checkout/seeded`, read by `opsctl checkout list --sandbox-seeded`): their
 * ids are made up at seeding, and the service has no list endpoint.
 */
import type {SandboxContext} from '../types.js'

import {checkRefund, checkVoid, RuleViolation} from '../../services/checkout/rules.js'
import {checkoutState} from './handlers.js'

/** The references of the seeded checkouts: one paid today (voidable), one paid two days ago (refundable). */
export const SEEDED_REFERENCES = ['SEED-PAID-TODAY', 'SEED-PAID-EARLIER'] as const

export interface SeededCheckout {
  checkoutId: string
  reference: string
  amount: string
  currency: string
  paymentStatus: string
  paidAt?: string
  /** What the rules allow on it now, by the sandbox clock. */
  possible: 'nothing' | 'refund' | 'void'
}

function allows(check: () => unknown): boolean {
  try {
    check()
    return true
  } catch (error) {
    if (error instanceof RuleViolation) return false
    throw error
  }
}

export async function seededCheckouts(ctx: SandboxContext): Promise<SeededCheckout[]> {
  const state = checkoutState(ctx)
  const now = ctx.clock.now()
  const found: SeededCheckout[] = []
  for (const checkout of await state.checkouts.values()) {
    if (!(SEEDED_REFERENCES as readonly string[]).includes(checkout.requestReferenceNumber)) continue
    const refunds = await state.refunds.get(checkout.id) ?? []
    const possible = allows(() => checkVoid(checkout, now)) ? 'void' : allows(() => checkRefund(checkout, refunds, {}, now)) ? 'refund' : 'nothing'
    found.push({
      checkoutId: checkout.id,
      reference: checkout.requestReferenceNumber,
      amount: checkout.totalAmount.value,
      currency: checkout.totalAmount.currency,
      paymentStatus: checkout.paymentStatus,
      paidAt: checkout.paymentDetails?.paymentAt,
      possible,
    })
  }

  return found
}
