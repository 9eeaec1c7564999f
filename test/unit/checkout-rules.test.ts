import {describe, expect, it} from 'vitest'

import {withHints} from '../../src/cli/hints.js'
import {ruleError} from '../../src/services/checkout/money-errors.js'
import {parseAmount} from '../../src/services/checkout/money.js'
import {
  type CheckoutFacts,
  checkRefund,
  checkVoid,
  formatPhTime,
  isExpired,
  type RefundFacts,
  RuleViolation,
  voidWindow,
} from '../../src/services/checkout/rules.js'

const at = (iso: string) => new Date(iso)

function paid(paymentAt: string, value = '1500.00', extra: Partial<CheckoutFacts> = {}): CheckoutFacts {
  return {
    id: 'chk_1',
    status: 'COMPLETED',
    paymentStatus: 'PAYMENT_SUCCESS',
    totalAmount: {value, currency: 'PHP'},
    refundedAmount: '0.00',
    createdAt: paymentAt,
    updatedAt: paymentAt,
    paymentDetails: {paymentAt},
    ...extra,
  }
}

function violation(fn: () => unknown): RuleViolation {
  try {
    fn()
  } catch (error) {
    if (error instanceof RuleViolation) return error
    throw error
  }

  throw new Error('expected a RuleViolation')
}

describe('void window (until 23:59:59 UTC+8 of the transaction date)', () => {
  // 18:00 in Manila on 21 Nov.
  const checkout = paid('2026-11-21T10:00:00.000Z')

  it('allows a void at 23:59:59 UTC+8 exactly', () => {
    const window = checkVoid(checkout, at('2026-11-21T15:59:59.000Z'))
    expect(window && formatPhTime(window.lastVoidSecond)).toBe('2026-11-21 23:59:59 +08:00')
    expect(checkVoid(checkout, at('2026-11-21T15:59:59.999Z'))).toBeDefined()
  })

  it('refuses a void at 00:00:00 UTC+8 of the next day with PY0073 and says to refund', () => {
    const v = violation(() => checkVoid(checkout, at('2026-11-21T16:00:00.000Z')))
    expect(v.code).toBe('PY0073')
    const shown = withHints(ruleError(v, 'chk_1'))
    expect(shown.message).toBe('void window closed at 2026-11-21 23:59:59 +08:00; use `opsctl refund create`')
    expect(shown.suggestions).toEqual(['opsctl refund create chk_1 --reason "<reason>" --full'])
    expect(v.serviceMessage).toBe('void window closed at 2026-11-21 23:59:59 +08:00; only a refund is possible now')
  })

  it('counts the transaction date in UTC+8, not UTC, across the date line', () => {
    // 00:30 on 22 Nov in Manila is still 21 Nov in UTC: the void window runs to the end of 22 Nov (UTC+8).
    const late = paid('2026-11-21T16:30:00.000Z')
    expect(formatPhTime(voidWindow(at('2026-11-21T16:30:00.000Z')).lastVoidSecond)).toBe('2026-11-22 23:59:59 +08:00')
    expect(checkVoid(late, at('2026-11-22T15:59:59.000Z'))).toBeDefined()
    expect(violation(() => checkVoid(late, at('2026-11-22T16:00:00.000Z'))).code).toBe('PY0073')
    // 23:59:59 in Manila, paid in the last second of the day: the window closes one second later.
    const lastSecond = paid('2026-11-21T15:59:59.000Z')
    expect(violation(() => checkVoid(lastSecond, at('2026-11-21T16:00:00.000Z'))).code).toBe('PY0073')
  })

  it('rolls over the end of the year', () => {
    const w = voidWindow(at('2026-12-31T15:00:00.000Z'))
    expect(formatPhTime(w.refundsFrom)).toBe('2027-01-01 00:00:00 +08:00')
    expect(w.refundsFrom.toISOString()).toBe('2026-12-31T16:00:00.000Z')
  })

  it('voids only a successful payment (PY0045)', () => {
    for (const paymentStatus of ['PENDING_PAYMENT', 'PAYMENT_FAILED', 'PAYMENT_CANCELLED', 'VOIDED', 'REFUNDED']) {
      const v = violation(() => checkVoid({...checkout, paymentStatus}, at('2026-11-21T11:00:00.000Z')))
      expect(v.code).toBe('PY0045')
    }
  })

  it('falls back to updatedAt of a successful payment when paymentAt is not shown', () => {
    const {paymentDetails: _, ...noDetails} = checkout
    expect(violation(() => checkVoid(noDetails, at('2026-11-21T16:00:00.000Z'))).code).toBe('PY0073')
  })
})

describe('refunds (one complete or one partial, never more than paid)', () => {
  const checkout = paid('2026-11-21T10:00:00.000Z', '1500.00')
  const nextDay = at('2026-11-21T16:00:00.000Z')

  it('refuses a refund before 00:00:00 UTC+8 of the next day (PY0072) and says to void', () => {
    const v = violation(() => checkRefund(checkout, [], {amount: parseAmount('10.00')}, at('2026-11-21T15:59:59.000Z')))
    expect(v.code).toBe('PY0072')
    const shown = withHints(ruleError(v, 'chk_1'))
    expect(shown.message).toContain('refunds open at 2026-11-22 00:00:00 +08:00')
    expect(shown.message).toContain('use `opsctl checkout void`')
    expect(v.serviceMessage).toContain('only a void is possible now')
  })

  it('allows a partial refund from 00:00:00 UTC+8, then refuses a second one (PY0082)', () => {
    const plan = checkRefund(checkout, [], {amount: parseAmount('500.00'), currency: 'PHP'}, nextDay)
    expect(plan).toMatchObject({amount: 50_000n, paid: 150_000n, remaining: 150_000n, kind: 'partial', currency: 'PHP'})
    const refunds: RefundFacts[] = [{id: 'rfd_1', status: 'SUCCESS', amount: {value: '500.00', currency: 'PHP'}}]
    const second = violation(() => checkRefund({...checkout, refundedAmount: '500.00'}, refunds, {amount: parseAmount('1.00')}, nextDay))
    expect(second.code).toBe('PY0082')
    expect(second.message).toContain('rfd_1')
  })

  it('refuses a second refund even if the record does not show refundedAmount yet', () => {
    const refunds: RefundFacts[] = [{id: 'rfd_1', status: 'SUCCESS', amount: {value: '500.00'}}]
    expect(violation(() => checkRefund(checkout, refunds, {}, nextDay)).code).toBe('PY0082')
  })

  it('does not count a FAILED refund: the one refund is still available, in full', () => {
    const refunds: RefundFacts[] = [{id: 'rfd_f', status: 'FAILED', amount: {value: '1500.00', currency: 'PHP'}}]
    const plan = checkRefund(checkout, refunds, {}, nextDay)
    expect(plan.amount).toBe(150_000n)
    expect(plan.kind).toBe('complete')
  })

  it('refuses more than was paid (PY0048), by a single cent', () => {
    const v = violation(() => checkRefund(checkout, [], {amount: parseAmount('1500.01')}, nextDay))
    expect(v.code).toBe('PY0048')
    expect(v.message).toContain('1500.01 PHP')
    expect(checkRefund(checkout, [], {amount: parseAmount('1500.00')}, nextDay).kind).toBe('complete')
  })

  it('refuses a refund in another currency and a zero refund', () => {
    expect(violation(() => checkRefund(checkout, [], {amount: 100n, currency: 'USD'}, nextDay)).message).toContain('USD')
    expect(violation(() => checkRefund(checkout, [], {amount: 0n}, nextDay)).code).toBe('PY0048')
  })

  it('refuses to refund a voided, failed or fully refunded checkout', () => {
    expect(violation(() => checkRefund({...checkout, paymentStatus: 'VOIDED'}, [], {}, nextDay)).code).toBe('PY0045')
    expect(violation(() => checkRefund({...checkout, paymentStatus: 'PAYMENT_FAILED'}, [], {}, nextDay)).code).toBe('PY0045')
    expect(violation(() => checkRefund({...checkout, paymentStatus: 'REFUNDED', refundedAmount: '1500.00'}, [], {}, nextDay)).code).toBe(
      'PY0082',
    )
  })

  it('keeps exact cents on large amounts', () => {
    const big = paid('2026-11-21T10:00:00.000Z', '99999999.99')
    expect(checkRefund(big, [], {amount: parseAmount('99999999.99')}, nextDay).kind).toBe('complete')
    expect(violation(() => checkRefund(big, [], {amount: parseAmount('100000000.00')}, nextDay)).code).toBe('PY0048')
  })
})

describe('expiry (one hour on the sandbox clock)', () => {
  const created = {id: 'chk_2', status: 'CREATED', createdAt: '2026-11-21T10:00:00.000Z', expiredAt: '2026-11-21T11:00:00.000Z'}
  it('expires an unpaid checkout at createdAt + 1 h, not before', () => {
    expect(isExpired(created, at('2026-11-21T10:59:59.999Z'))).toBe(false)
    expect(isExpired(created, at('2026-11-21T11:00:00.000Z'))).toBe(true)
    expect(isExpired({...created, status: 'COMPLETED'}, at('2026-11-22T11:00:00.000Z'))).toBe(false)
  })
})
