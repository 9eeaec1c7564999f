/**
 * Void and refund when the answer is lost: the command reads the checkout (or its refunds) back,
 * once, and reports what happened; it never sends the change a second time. MockAgent plays the
 * service: `replyWithError` is a connection that died after the request went out.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {readAudit} from '../../src/audit/read.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import RefundCreate from '../../src/commands/refund/create.js'
import {BASE, checkoutRecord, dateHeader, JSON_HEADERS, SECRETS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

// Paid at 10:05 on 21 Nov in Manila: voidable until 2026-11-21T15:59:59Z, refundable after.
const SAME_DAY = '2026-11-21T06:00:00Z'
const NEXT_DAY = '2026-11-22T06:00:00Z'
const CHECKOUT = `${BASE}/checkouts/chk_1`
const REFUNDS = `${CHECKOUT}/refunds`

/** The server closed the socket after the request was written, as undici reports it: it may or may not have acted. */
const lostAnswer = () => Object.assign(new Error('other side closed'), {code: 'UND_ERR_SOCKET'})
/** The client's --timeout ran out first (undici rejects with the AbortSignal's reason): the service may still act. */
const timedOut = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError')
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), {code: 'ECONNREFUSED'})

function readCheckoutAs(now: string, record = checkoutRecord()) {
  h.pool.intercept({path: CHECKOUT, method: 'GET'}).reply(200, record, {headers: dateHeader(now)})
}

function readRefundsAs(refunds: unknown[]) {
  h.pool.intercept({path: REFUNDS, method: 'GET'}).reply(200, refunds, {headers: JSON_HEADERS})
}

const sent = (method: string, path: string) => h.calls().filter((c) => c.method === method && c.path === path)

async function audit() {
  return (await readAudit(process.env.OPSCTL_CONFIG_DIR!)).entries
}

describe('checkout void: the answer is lost', () => {
  it('the checkout reads VOIDED -> applied: exit 0, a note on stderr, one DELETE, a reconciliation line', async () => {
    readCheckoutAs(SAME_DAY)
    h.pool.intercept({path: CHECKOUT, method: 'DELETE'}).replyWithError(lostAnswer())
    readCheckoutAs(SAME_DAY, checkoutRecord({paymentStatus: 'VOIDED'}))

    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'duplicate order', '--yes', '--json'])
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toMatchObject({checkoutId: 'chk_1', voidStatus: 'SUCCESS', amount: '1500.00', reconciled: true})
    expect(out.stderr).toContain('the answer was lost; reconciled: applied')
    expect(sent('DELETE', CHECKOUT)).toHaveLength(1)
    expect(sent('GET', CHECKOUT)).toHaveLength(2)

    const lines = await audit()
    expect(lines.map((l) => [l.operation, l.outcome, l.reconciled ?? false])).toEqual([
      ['voidCheckout', 'unknown', false],
      ['voidCheckout', 'applied', true],
    ])
    expect(lines[1]).toMatchObject({checkoutId: 'chk_1', amount: {value: '1500.00', currency: 'PHP'}})
  })

  it('the checkout still reads PAYMENT_SUCCESS -> "not applied", exit 7, safe to run again, nothing resent', async () => {
    readCheckoutAs(SAME_DAY)
    h.pool.intercept({path: CHECKOUT, method: 'DELETE'}).replyWithError(lostAnswer())
    readCheckoutAs(SAME_DAY)

    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', "customer's call", '--yes'])
    expect(out.code).toBe(7)
    expect(out.stderr).toContain('the void was not applied (checkout chk_1 is still PAYMENT_SUCCESS)')
    expect(out.stderr).toContain('safe to run the same command again')
    expect(out.stderr).toContain(`Try this: opsctl checkout void chk_1 --reason 'customer'\\''s call' --yes`)
    expect(out.stdout).toBe('')
    expect(sent('DELETE', CHECKOUT)).toHaveLength(1)
    expect((await audit()).map((l) => l.outcome)).toEqual(['unknown', 'not applied'])
  })

  it('the client timed out and the checkout still reads PAYMENT_SUCCESS -> unknown, never "not applied": exit 7, how to check', async () => {
    readCheckoutAs(SAME_DAY)
    h.pool.intercept({path: CHECKOUT, method: 'DELETE'}).replyWithError(timedOut())
    readCheckoutAs(SAME_DAY)

    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'duplicate order', '--yes', '--timeout', '1', '--json'])
    expect(out.code).toBe(7)
    expect(out.stdout).toBe('')
    const {error} = JSON.parse(out.stderr)
    expect(error).toMatchObject({exitCode: 7, reconciled: 'unknown', outcomeUnknown: true})
    expect(error.message).toContain('timed out after 1 s')
    expect(error.message).toContain('The outcome is unknown: the service may still be working on it')
    expect(error.message).not.toContain('not applied')
    expect(error.suggestions[0]).toBe('opsctl checkout get chk_1')
    expect(sent('DELETE', CHECKOUT)).toHaveLength(1)
    const lines = await audit()
    expect(lines.map((l) => [l.outcome, l.reconciled ?? false])).toEqual([
      ['unknown', false],
      ['unknown', true],
    ])
    expect(lines[1].message).toContain('read checkout: paymentStatus PAYMENT_SUCCESS; the void may still be in progress')
  })

  it('the client timed out and the checkout already reads VOIDED -> applied, exit 0', async () => {
    readCheckoutAs(SAME_DAY)
    h.pool.intercept({path: CHECKOUT, method: 'DELETE'}).replyWithError(timedOut())
    readCheckoutAs(SAME_DAY, checkoutRecord({paymentStatus: 'VOIDED'}))

    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'duplicate order', '--yes', '--timeout', '1', '--json'])
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toMatchObject({voidStatus: 'SUCCESS', reconciled: true})
    expect((await audit()).map((l) => l.outcome)).toEqual(['unknown', 'applied'])
  })

  it('the reading back fails too -> the outcome is unknown, exit 7, with how to check; no reconciliation line', async () => {
    readCheckoutAs(SAME_DAY)
    h.pool.intercept({path: CHECKOUT, method: 'DELETE'}).replyWithError(lostAnswer())
    h.pool.intercept({path: CHECKOUT, method: 'GET'}).reply(500, {code: 'PY0000', message: 'down'}, {headers: JSON_HEADERS})

    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'x', '--yes', '--json'])
    expect(out.code).toBe(7)
    const {error} = JSON.parse(out.stderr)
    expect(error).toMatchObject({exitCode: 7, reconciled: 'unknown', suggestions: ['opsctl checkout get chk_1']})
    expect(error.message).toContain('The outcome is unknown')
    expect(error.message).not.toContain('not applied')
    expect((await audit()).map((l) => l.outcome)).toEqual(['unknown'])
  })

  it('a refused connection sent nothing: exit 7 at once, no reading back', async () => {
    readCheckoutAs(SAME_DAY)
    h.pool.intercept({path: CHECKOUT, method: 'DELETE'}).replyWithError(refused())

    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'x', '--yes'])
    expect(out.code).toBe(7)
    expect(out.stderr).toContain('refused the connection')
    expect(out.stderr).not.toContain('reconciled')
    expect(sent('GET', CHECKOUT)).toHaveLength(1)
    expect((await audit()).map((l) => l.outcome)).toEqual(['not sent'])
  })
})

describe('refund create: the answer is lost', () => {
  it('a new refund of that amount is listed -> applied: exit 0 with its id, one POST', async () => {
    readCheckoutAs(NEXT_DAY)
    readRefundsAs([])
    h.pool.intercept({path: REFUNDS, method: 'POST'}).replyWithError(lostAnswer())
    readRefundsAs([{id: 'rfd_9', status: 'SUCCESS', amount: {value: '50.00', currency: 'PHP'}, checkout: 'chk_1'}])

    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'damaged', '--amount', '50', '--yes', '--json'])
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toMatchObject({
      checkoutId: 'chk_1',
      refundId: 'rfd_9',
      status: 'SUCCESS',
      amount: '50.00',
      currency: 'PHP',
      kind: 'partial',
      reconciled: true,
    })
    expect(out.stderr).toContain('the answer was lost; reconciled: applied')
    expect(sent('POST', REFUNDS)).toHaveLength(1)
    const lines = await audit()
    expect(lines.map((l) => [l.outcome, l.refundId ?? null, l.reconciled ?? false])).toEqual([
      ['unknown', null, false],
      ['applied', 'rfd_9', true],
    ])
  })

  it('only the refunds that were already there -> "not applied", exit 7 (an old FAILED refund is not taken for this one)', async () => {
    const old = {id: 'rfd_1', status: 'FAILED', amount: {value: '50.00', currency: 'PHP'}, checkout: 'chk_1'}
    readCheckoutAs(NEXT_DAY)
    readRefundsAs([old])
    h.pool.intercept({path: REFUNDS, method: 'POST'}).replyWithError(lostAnswer())
    readRefundsAs([old])

    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'damaged', '--amount', '50.00', '--yes'])
    expect(out.code).toBe(7)
    expect(out.stderr).toContain('the refund was not applied (checkout chk_1 has no new refund of 50.00 PHP)')
    expect(out.stderr).toContain('safe to run the same command again')
    expect(sent('POST', REFUNDS)).toHaveLength(1)
    expect((await audit()).map((l) => [l.outcome, l.reconciled ?? false])).toEqual([
      ['unknown', false],
      ['not applied', true],
    ])
  })

  it('a new refund of another amount is not this one -> "not applied"', async () => {
    readCheckoutAs(NEXT_DAY)
    readRefundsAs([])
    h.pool.intercept({path: REFUNDS, method: 'POST'}).replyWithError(lostAnswer())
    readRefundsAs([{id: 'rfd_7', status: 'SUCCESS', amount: {value: '10.00', currency: 'PHP'}}])

    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'damaged', '--amount', '50.00', '--yes'])
    expect(out.code).toBe(7)
    expect(out.stderr).toContain('not applied')
  })

  it('the new refund is listed FAILED -> reported as a failed refund (exit 5), nothing moved', async () => {
    readCheckoutAs(NEXT_DAY)
    readRefundsAs([])
    h.pool.intercept({path: REFUNDS, method: 'POST'}).replyWithError(lostAnswer())
    readRefundsAs([{id: 'rfd_3', status: 'FAILED', amount: {value: '1500.00', currency: 'PHP'}}])

    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'cancelled', '--full', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('refund rfd_3 of 1500.00 PHP FAILED: nothing was refunded')
    expect((await audit()).at(-1)).toMatchObject({outcome: 'not applied', refundId: 'rfd_3', reconciled: true})
  })

  it('the client timed out and no new refund is listed yet -> unknown, never "not applied": exit 7, check with refund list', async () => {
    readCheckoutAs(NEXT_DAY)
    readRefundsAs([])
    h.pool.intercept({path: REFUNDS, method: 'POST'}).replyWithError(timedOut())
    readRefundsAs([])

    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'damaged', '--amount', '50.00', '--yes', '--timeout', '1'])
    expect(out.code).toBe(7)
    expect(out.stderr).toContain('timed out after 1 s')
    expect(out.stderr).toContain('The outcome is unknown')
    expect(out.stderr).not.toContain('not applied')
    expect(out.stderr).toContain('Try this: opsctl refund list chk_1')
    expect(sent('POST', REFUNDS)).toHaveLength(1)
    expect((await audit()).map((l) => [l.outcome, l.reconciled ?? false])).toEqual([
      ['unknown', false],
      ['unknown', true],
    ])
  })

  it('the refunds cannot be read back -> the outcome is unknown, exit 7, check with refund list', async () => {
    readCheckoutAs(NEXT_DAY)
    readRefundsAs([])
    h.pool.intercept({path: REFUNDS, method: 'POST'}).replyWithError(lostAnswer())
    h.pool.intercept({path: REFUNDS, method: 'GET'}).reply(401, {error: 'bad key', code: 'K003'}, {headers: JSON_HEADERS})

    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '5.00', '--yes'])
    expect(out.code).toBe(7)
    expect(out.stderr).toContain('The outcome is unknown')
    expect(out.stderr).toContain('Try this: opsctl refund list chk_1')
    for (const secret of SECRETS) expect(out.stderr).not.toContain(secret)
  })
})
