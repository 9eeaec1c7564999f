import {describe, expect, it} from 'vitest'

import type {AuditEntry} from '../../src/audit/log.js'

import {createdCheckouts, selectEntries} from '../../src/audit/history.js'
import {entryFromAttempt} from '../../src/audit/log.js'
import {refundConfirmation} from '../../src/cli/checkout/money-prompts.js'
import {parseAmount} from '../../src/services/checkout/money.js'
import {checkoutOps} from '../../src/services/checkout/operations.js'
import {checkRefund} from '../../src/services/checkout/rules.js'
import {parseTimeInput} from '../../src/services/time-input.js'

const line = (time: string, operation: string, outcome: string, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  env: 'sandbox',
  operation,
  outcome,
  profile: 'sandbox',
  time,
  ...extra,
})

const LOG: AuditEntry[] = [
  line('2026-11-21T01:00:00.000Z', 'initiateCheckout', 'applied', {checkoutId: 'chk_a', amount: {value: '70.00', currency: 'PHP'}, reference: 'A'}),
  line('2026-11-21T02:00:00.000Z', 'initiateCheckout', 'applied', {checkoutId: 'chk_b', amount: {value: '30.00', currency: 'PHP'}, reference: 'B'}),
  line('2026-11-21T02:30:00.000Z', 'initiateCheckout', 'refused', {status: 400}),
  line('2026-11-21T03:00:00.000Z', 'initiateCheckout', 'applied', {checkoutId: 'chk_p', profile: 'prod', env: 'production'}),
  line('2026-11-22T01:00:00.000Z', 'refundCheckout', 'refused by rule', {checkoutId: 'chk_a', code: 'PY0048'}),
  line('2026-11-22T02:00:00.000Z', 'refundCheckout', 'applied', {checkoutId: 'chk_a', refundId: 'rfd_1', amount: {value: '20.00', currency: 'PHP'}}),
  line('2026-11-22T03:00:00.000Z', 'registerWebhook', 'applied', {webhookId: 'wh_1'}),
  line('2026-11-22T04:00:00.000Z', 'voidCheckout', 'unknown', {checkoutId: 'chk_b'}),
  line('2026-11-22T04:00:01.000Z', 'voidCheckout', 'applied', {checkoutId: 'chk_b', reconciled: true}),
]

/** Then a second partial refund of chk_a, and a second void of chk_b that the service refuses. */
const LATER: AuditEntry[] = [
  line('2026-11-22T02:10:00.000Z', 'refundCheckout', 'applied', {checkoutId: 'chk_a', refundId: 'rfd_2', amount: {value: '5.50', currency: 'PHP'}}),
  line('2026-11-22T05:00:00.000Z', 'voidCheckout', 'refused by rule', {checkoutId: 'chk_b', code: 'PY0074'}),
]

describe('checkout list from the audit log', () => {
  it("lists the profile's created checkouts newest first, each with its known state and, apart, its last attempt", () => {
    expect(createdCheckouts([...LOG, ...LATER], 'sandbox')).toEqual([
      {
        checkoutId: 'chk_b',
        amount: '30.00',
        currency: 'PHP',
        // voided, then a second void refused: still voided, since the void applied
        state: 'voided',
        stateAt: '2026-11-22T04:00:01.000Z',
        createdAt: '2026-11-21T02:00:00.000Z',
        reference: 'B',
        lastAttempt: 'void refused by rule PY0074',
        lastAttemptAt: '2026-11-22T05:00:00.000Z',
        source: 'local',
      },
      {
        checkoutId: 'chk_a',
        amount: '70.00',
        currency: 'PHP',
        state: 'refunded 25.50',
        stateAt: '2026-11-22T02:10:00.000Z',
        createdAt: '2026-11-21T01:00:00.000Z',
        reference: 'A',
        lastAttempt: 'refund applied',
        lastAttemptAt: '2026-11-22T02:10:00.000Z',
        source: 'local',
      },
    ])
    const smoke = line('2026-11-23T01:00:00.000Z', 'initiateCheckout', 'applied', {checkoutId: 'chk_smoke', run: 'smoke'})
    expect(createdCheckouts([...LOG, smoke], 'sandbox').map((c) => c.checkoutId)).toEqual(['chk_b', 'chk_a'])
    expect(createdCheckouts([...LOG, smoke], 'sandbox', {includeRuns: true}).map((c) => c.checkoutId)).toEqual(['chk_smoke', 'chk_b', 'chk_a'])
    expect(createdCheckouts(LOG, 'prod')).toEqual([
      {
        checkoutId: 'chk_p',
        amount: null,
        currency: null,
        state: 'created',
        stateAt: null,
        createdAt: '2026-11-21T03:00:00.000Z',
        reference: null,
        lastAttempt: null,
        lastAttemptAt: null,
        source: 'local',
      },
    ])
  })
})

describe('audit list selection', () => {
  it('combines outcome, operation, checkout and a half-open time range', () => {
    expect(selectEntries(LOG, {outcome: 'refused by rule'}).map((e) => e.code)).toEqual(['PY0048'])
    expect(selectEntries(LOG, {operation: 'voidCheckout', checkoutId: 'chk_b'})).toHaveLength(2)
    const day2 = selectEntries(LOG, {since: new Date('2026-11-22T00:00:00Z'), until: new Date('2026-11-22T04:00:00Z')})
    expect(day2.map((e) => e.operation)).toEqual(['refundCheckout', 'refundCheckout', 'registerWebhook'])
  })

  it('reads a time flag as an ISO time, a duration back from now, or now/today/yesterday, and refuses anything else (exit 2)', () => {
    const now = new Date('2026-11-22T12:00:00Z')
    const at = (text: string, zone?: string) => parseTimeInput(text, '--since', {now, zone}).toISOString()
    expect(at('24h')).toBe('2026-11-21T12:00:00.000Z')
    expect(at('7d')).toBe('2026-11-15T12:00:00.000Z')
    expect(at('2026-11-01')).toBe('2026-11-01T00:00:00.000Z')
    expect(at('2026-11-01T08:30:00+08:00')).toBe('2026-11-01T00:30:00.000Z')
    expect(at('now')).toBe('2026-11-22T12:00:00.000Z')
    // The start of the day in the zone: Manila is UTC+8 all year, so its midnight is 16:00 UTC the day before.
    expect(at('today', 'Asia/Manila')).toBe('2026-11-21T16:00:00.000Z')
    expect(at('yesterday', 'Asia/Manila')).toBe('2026-11-20T16:00:00.000Z')
    expect(at('today', 'UTC')).toBe('2026-11-22T00:00:00.000Z')
    // Across a daylight-saving change: New York's midnight of 2026-11-02 is UTC-5, the day before was UTC-4.
    expect(parseTimeInput('today', '--since', {now: new Date('2026-11-02T12:00:00Z'), zone: 'America/New_York'}).toISOString()).toBe('2026-11-02T05:00:00.000Z')
    expect(parseTimeInput('yesterday', '--since', {now: new Date('2026-11-02T12:00:00Z'), zone: 'America/New_York'}).toISOString()).toBe('2026-11-01T04:00:00.000Z')
    for (const bad of ['tomorrow', '12', '-2h', '2026-11-01T08:30', '2026-02-30', '2026-11-01T24:00:00Z']) expect(() => parseTimeInput(bad, '--since', {now})).toThrow(/--since: ".*" is not a time/)
  })
})

describe('the refund prompt says what the refund uses up', () => {
  const checkout = {
    id: 'chk_a',
    paymentStatus: 'PAYMENT_SUCCESS',
    totalAmount: {value: '70.00', currency: 'PHP'},
    paymentDetails: {paymentAt: '2026-11-21T02:00:00Z'},
  }
  const nextDay = new Date('2026-11-22T02:00:00Z')

  it('a partial refund is the only one: the rest can never be refunded', () => {
    const plan = checkRefund(checkout, [], {amount: parseAmount('10.00')}, nextDay)
    expect(plan.unrefundable).toBe(6000n)
    const {action, detail} = refundConfirmation({checkoutId: 'chk_a', value: '10.00', currency: 'PHP', plan})!
    expect(`${action}? ${detail}`).toBe('Refund 10.00 PHP of checkout chk_a? This is its only refund: the other 60.00 PHP can never be refunded.')
  })

  it('a complete refund says it refunds the whole payment; under --dry-run (nothing read) only the amount', () => {
    const plan = checkRefund(checkout, [], {}, nextDay)
    expect(plan.unrefundable).toBe(0n)
    expect(refundConfirmation({checkoutId: 'chk_a', value: '70.00', currency: 'PHP', plan})!.detail).toBe(
      'This is its only refund: the whole payment of 70.00 PHP.',
    )
    expect(refundConfirmation({checkoutId: 'chk_a', value: '5.00', currency: 'PHP'})).toEqual({
      action: 'Refund 5.00 PHP of checkout chk_a',
      resourceId: 'chk_a',
    })
  })
})

describe('an audit line from an attempt', () => {
  it('keeps the reason, reference and code, never the buyer; a refund answered FAILED reads refused', () => {
    const created = entryFromAttempt(
      {
        operation: checkoutOps.initiateCheckout,
        params: {},
        body: {
          totalAmount: {value: '70.00', currency: 'PHP'},
          requestReferenceNumber: 'ORDER-1',
          buyer: {firstName: 'Ana', contact: {email: 'ana@example.com'}},
        },
        data: {checkoutId: 'chk_a', redirectUrl: 'http://127.0.0.1/pay/chk_a'},
        outcome: 'applied',
      },
      'sandbox',
      'sandbox',
    )
    expect(created).toMatchObject({checkoutId: 'chk_a', reference: 'ORDER-1', amount: {value: '70.00', currency: 'PHP'}})
    expect(JSON.stringify(created)).not.toMatch(/Ana|ana@example.com/)

    const refused = entryFromAttempt(
      {
        operation: checkoutOps.refundCheckout,
        params: {checkoutId: 'chk_a'},
        body: {reason: 'over', amount: {value: '80.00', currency: 'PHP'}},
        outcome: 'refused by rule',
        code: 'PY0048',
      },
      'sandbox',
      'sandbox',
    )
    expect(refused).toMatchObject({outcome: 'refused by rule', code: 'PY0048', reason: 'over'})

    const failed = entryFromAttempt(
      {
        operation: checkoutOps.refundCheckout,
        params: {checkoutId: 'chk_a'},
        body: {reason: 'card closed', amount: {value: '20.00', currency: 'PHP'}},
        data: {refundId: 'rfd_9', status: 'FAILED'},
        outcome: 'applied',
        status: 200,
      },
      'sandbox',
      'sandbox',
    )
    expect(failed).toMatchObject({outcome: 'refused', refundId: 'rfd_9', message: 'the service answered status FAILED: nothing was refunded'})
  })
})
