import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import RefundCreate from '../../src/commands/refund/create.js'
import RefundGet from '../../src/commands/refund/get.js'
import RefundList from '../../src/commands/refund/list.js'
import {BASE, checkoutRecord, dateHeader, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

// Paid at 10:05 on 21 Nov in Manila; refunds open at 00:00:00 on 22 Nov (2026-11-21T16:00:00Z).
const NEXT_DAY = '2026-11-21T16:00:00Z'
const SAME_DAY = '2026-11-21T15:59:59Z'

function given(now: string, refunds: unknown[] = [], record = checkoutRecord()) {
  h.pool.intercept({path: `${BASE}/checkouts/chk_1`, method: 'GET'}).reply(200, record, {headers: dateHeader(now)})
  h.pool.intercept({path: `${BASE}/checkouts/chk_1/refunds`, method: 'GET'}).reply(200, refunds, {headers: JSON_HEADERS})
}

function acceptRefund(status = 'SUCCESS') {
  h.pool
    .intercept({path: `${BASE}/checkouts/chk_1/refunds`, method: 'POST'})
    .reply(200, {refundId: 'rfd_9', status}, {headers: JSON_HEADERS})
}

const posts = () => h.calls().filter((c) => c.method === 'POST')

describe('refund create', () => {
  it('sends a partial refund once, with the reason and the amount in two decimals', async () => {
    given(NEXT_DAY)
    acceptRefund()
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'damaged item', '--amount', '50.5', '--yes', '--json'])
    expect(out.code).toBe(0)
    expect(posts().map((p) => p.body)).toEqual([{reason: 'damaged item', amount: {value: '50.50', currency: 'PHP'}}])
    expect(JSON.parse(out.stdout)).toMatchObject({
      checkoutId: 'chk_1',
      refundId: 'rfd_9',
      status: 'SUCCESS',
      amount: '50.50',
      currency: 'PHP',
      kind: 'partial',
    })
  })

  it('--full refunds what is left; a FAILED attempt in the list does not count', async () => {
    given(NEXT_DAY, [{id: 'rfd_1', status: 'FAILED', amount: {value: '1500.00', currency: 'PHP'}}])
    acceptRefund()
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'cancelled', '--full', '--yes'])
    expect(out.code).toBe(0)
    expect(posts()[0].body.amount).toEqual({value: '1500.00', currency: 'PHP'})
    expect(out.stdout).toMatch(/kind\tcomplete/)
  })

  it('refuses a second refund (exit 5) without sending it', async () => {
    given(
      NEXT_DAY,
      [{id: 'rfd_1', status: 'SUCCESS', amount: {value: '50.00', currency: 'PHP'}}],
      checkoutRecord({refundedAmount: '50.00'}),
    )
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'again', '--amount', '10.00', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('checkout chk_1 already has refund rfd_1 (SUCCESS, 50.00 PHP); only one refund')
    expect(posts()).toEqual([])
  })

  it('refuses an amount over what was paid (exit 5), by one cent', async () => {
    given(NEXT_DAY)
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1500.01', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('a refund of 1500.01 PHP is more than the 1500.00 PHP')
    expect(posts()).toEqual([])
  })

  it('refuses a refund on the transaction day (exit 5) and says to void instead', async () => {
    given(SAME_DAY)
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--full', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('refunds open at 2026-11-22 00:00:00 +08:00')
    expect(out.stderr).toContain('use `opsctl checkout void`')
    expect(posts()).toEqual([])
  })

  it('refuses a currency other than the checkout one (exit 5)', async () => {
    given(NEXT_DAY)
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1.00', '--currency', 'USD', '--yes'])
    expect(out.code).toBe(5)
    expect(posts()).toEqual([])
  })

  it('needs --amount or --full, and refuses three decimals, before anything is sent (exit 2)', async () => {
    expect((await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--yes'])).code).toBe(2)
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1.001', '--yes'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('at most two decimals')
    expect((await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1.00', '--full'])).code).toBe(2)
    expect(h.calls()).toEqual([])
  })

  it('needs --yes without a terminal (exit 2): nothing is sent, not even the reads', async () => {
    given(NEXT_DAY)
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1.00'])
    expect(out.code).toBe(2)
    expect(h.calls()).toEqual([])
  })

  it('reports a FAILED refund as a refusal (exit 5) naming the refund', async () => {
    given(NEXT_DAY)
    acceptRefund('FAILED')
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1.00', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('refund rfd_9 of 1.00 PHP FAILED')
  })

  it('is never retried: a 502 is answered once', async () => {
    given(NEXT_DAY)
    h.pool
      .intercept({path: `${BASE}/checkouts/chk_1/refunds`, method: 'POST'})
      .reply(502, {message: 'bad gateway'}, {headers: JSON_HEADERS})
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '1.00', '--yes'])
    expect(out.code).toBe(6)
    expect(posts()).toHaveLength(1)
  })

  it('--dry-run with --amount prints the POST and sends nothing; --full cannot be dry-run', async () => {
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--amount', '2', '--dry-run'])
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('"value":"2.00"')
    expect((await h.run(RefundCreate, ['chk_1', '--reason', 'x', '--full', '--dry-run'])).code).toBe(2)
    expect(h.calls()).toEqual([])
  })
})

describe('refund list / get', () => {
  const refunds = [
    {
      id: 'rfd_1',
      status: 'FAILED',
      amount: {value: '10.00', currency: 'PHP'},
      reason: 'try',
      createdAt: '2026-11-22T01:00:00Z',
      checkout: 'chk_1',
    },
    {
      id: 'rfd_2',
      status: 'SUCCESS',
      amount: {value: '10.00', currency: 'PHP'},
      reason: 'ok',
      createdAt: '2026-11-22T02:00:00Z',
      checkout: 'chk_1',
    },
  ]

  it('lists every refund as a table, FAILED included', async () => {
    h.pool.intercept({path: `${BASE}/checkouts/chk_1/refunds`, method: 'GET'}).reply(200, refunds, {headers: JSON_HEADERS})
    const out = await h.run(RefundList, ['chk_1'])
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(/rfd_1\tFAILED\t10\.00\tPHP/)
    expect(out.stdout).toMatch(/rfd_2\tSUCCESS/)
  })

  it('lists as CSV and JSON', async () => {
    h.pool.intercept({path: `${BASE}/checkouts/chk_1/refunds`, method: 'GET'}).reply(200, refunds, {headers: JSON_HEADERS})
    const csv = await h.run(RefundList, ['chk_1', '-o', 'csv'])
    expect(csv.stdout.split('\n')[0]).toBe('id,status,amount.value,amount.currency,reason,createdAt')
    h.pool.intercept({path: `${BASE}/checkouts/chk_1/refunds`, method: 'GET'}).reply(200, refunds, {headers: JSON_HEADERS})
    const json = await h.run(RefundList, ['chk_1', '--json'])
    expect(JSON.parse(json.stdout).refunds).toEqual(refunds)
  })

  it('gets one refund; an unknown one exits 4', async () => {
    h.pool.intercept({path: `${BASE}/checkouts/chk_1/refunds/rfd_2`, method: 'GET'}).reply(200, refunds[1], {headers: JSON_HEADERS})
    const out = await h.run(RefundGet, ['chk_1', 'rfd_2', '--json'])
    expect(JSON.parse(out.stdout)).toEqual(refunds[1])
    h.pool
      .intercept({path: `${BASE}/checkouts/chk_1/refunds/nope`, method: 'GET'})
      .reply(404, {code: 'PY0009', message: 'Refund nope not found'}, {headers: JSON_HEADERS})
    expect((await h.run(RefundGet, ['chk_1', 'nope'])).code).toBe(4)
  })
})
