/**
 * The one rule for a lost void or refund answer (src/services/checkout/reconcile.ts). Both callers
 * ask it: the single commands (test/commands/reconcile.test.ts shows what they then report) and a
 * bulk run reading back a row an earlier run left without an outcome (test/e2e/bulk-refunds.test.ts).
 */
import {describe, expect, it} from 'vitest'

import type {CheckoutRecord, RefundRecord} from '../../src/services/checkout/operations.js'

import {refundSeen, voidSeen} from '../../src/services/checkout/reconcile.js'

const refund = (id: string, value: string, status = 'SUCCESS', currency: string | undefined = 'PHP'): RefundRecord =>
  ({amount: {value, ...(currency ? {currency} : {})}, id, status}) as RefundRecord

describe('the reconciliation rule', () => {
  it('a void shows as VOIDED; any other status is no void', () => {
    expect(voidSeen({paymentStatus: 'VOIDED'} as CheckoutRecord)).toBe('applied')
    expect(voidSeen({paymentStatus: 'PAYMENT_SUCCESS'} as CheckoutRecord)).toBeUndefined()
  })

  it('the refund sent is a new one of the amount and currency; one that went through wins over a FAILED one', () => {
    const sent = {cents: 5000n, currency: 'PHP', known: ['rfd_old']}
    expect(refundSeen([refund('rfd_old', '50.00')], sent)).toBeUndefined()
    expect(refundSeen([refund('rfd_2', '49.99'), refund('rfd_3', '50.00', 'SUCCESS', 'USD')], sent)).toBeUndefined()
    expect(refundSeen([refund('rfd_2', '50.00', 'FAILED'), refund('rfd_3', '50.00')], sent)).toEqual({outcome: 'applied', refund: refund('rfd_3', '50.00')})
    expect(refundSeen([refund('rfd_2', '50.00', 'SUCCESS', undefined)], sent)?.outcome).toBe('applied')
  })

  it('a new FAILED refund is "not applied" for every caller: nothing moved, the one refund is not used up', () => {
    const failed = refund('rfd_2', '50.00', 'FAILED')
    expect(refundSeen([failed], {cents: 5000n, currency: 'PHP', known: []})).toEqual({outcome: 'not applied', refund: failed})
    // A bulk journal may hold no currency (a full refund): any currency matches.
    expect(refundSeen([failed], {cents: 5000n, known: []})?.outcome).toBe('not applied')
  })
})
