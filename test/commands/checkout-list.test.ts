/**
 * `checkout list` reads the state of each checkout it shows from the service (and only those),
 * words it as the merchant asks (paid, declined, expired, voided, refunded <amount>), keeps the
 * local last attempt beside it, and has one shape whatever it read; `audit list --profile` keeps
 * a CI profile's lines apart. The service is a mock (test/helpers/command.ts).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import AuditList from '../../src/commands/audit/list.js'
import CheckoutList from '../../src/commands/checkout/list.js'
import {BASE, checkoutRecord, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness
beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

const created = (id: string, minute: number, profile = 'sandbox') => ({
  time: `2026-11-21T02:${String(minute).padStart(2, '0')}:00.000Z`,
  profile,
  env: 'sandbox',
  operation: 'initiateCheckout',
  outcome: 'applied',
  checkoutId: id,
  amount: {value: '70.00', currency: 'PHP'},
})

function writeLog(lines: object[]): void {
  writeFileSync(join(h.configDir, 'audit.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n', {mode: 0o600})
}

function serviceHas(id: string, overrides: Record<string, unknown>): void {
  h.pool.intercept({path: `${BASE}/checkouts/${id}`, method: 'GET'}).reply(200, checkoutRecord({id, ...overrides}), {headers: JSON_HEADERS})
}

describe('checkout list', () => {
  it("shows each checkout's state as the service reports it, with the service's times and the local last attempt beside it", async () => {
    const refusedVoid = {...created('chk_paid', 1), time: '2026-11-21T03:00:00.000Z', operation: 'voidCheckout', outcome: 'refused by rule', code: 'PY0073'}
    writeLog([created('chk_paid', 1), created('chk_declined', 2), created('chk_expired', 3), created('chk_voided', 4), created('chk_part', 5), created('chk_all', 6), refusedVoid])
    serviceHas('chk_paid', {createdAt: '2026-11-22T01:00:00.000Z'})
    serviceHas('chk_declined', {status: 'COMPLETED', paymentStatus: 'PAYMENT_FAILED', updatedAt: '2026-11-22T01:10:00.000Z'})
    serviceHas('chk_expired', {status: 'EXPIRED', paymentStatus: 'PAYMENT_EXPIRED', updatedAt: '2026-11-22T02:00:00.000Z'})
    serviceHas('chk_voided', {paymentStatus: 'VOIDED'})
    serviceHas('chk_part', {refundedAmount: '10.00'})
    serviceHas('chk_all', {paymentStatus: 'REFUNDED', refundedAmount: '70.00'})
    const {checkouts} = JSON.parse((await h.run(CheckoutList, ['--json'])).stdout)
    expect(checkouts.map((c: any) => [c.checkoutId, c.state, c.source])).toEqual([
      ['chk_all', 'refunded 70.00', 'service'],
      ['chk_part', 'refunded 10.00', 'service'],
      ['chk_voided', 'voided', 'service'],
      ['chk_expired', 'expired', 'service'],
      ['chk_declined', 'declined', 'service'],
      ['chk_paid', 'paid', 'service'],
    ])
    const paid = checkouts.at(-1)
    // the service's clock: its creation and payment times, not this machine's
    expect(paid).toMatchObject({createdAt: '2026-11-22T01:00:00.000Z', stateAt: '2026-11-21T02:05:00.000Z', lastAttempt: 'void refused by rule PY0073', lastAttemptAt: '2026-11-21T03:00:00.000Z'})
    expect(checkouts[3].stateAt).toBe('2026-11-22T02:00:00.000Z')
  })

  it('reads only the rows shown (--limit); --no-refresh reads nothing; both have the same fields', async () => {
    writeLog([created('chk_1', 1), created('chk_2', 2), created('chk_3', 3), created('chk_ci', 4, 'ci')])
    serviceHas('chk_3', {paymentStatus: 'PAYMENT_FAILED'})
    serviceHas('chk_2', {})
    const live = JSON.parse((await h.run(CheckoutList, ['--limit', '2', '--json'])).stdout).checkouts
    expect(h.calls().map((c) => c.path)).toEqual([`${BASE}/checkouts/chk_3`, `${BASE}/checkouts/chk_2`])
    expect(live.map((c: any) => c.state)).toEqual(['declined', 'paid'])

    const local = JSON.parse((await h.run(CheckoutList, ['--no-refresh', '--json'])).stdout).checkouts
    expect(h.calls()).toHaveLength(2)
    expect(local.map((c: any) => [c.checkoutId, c.state, c.stateAt, c.source])).toEqual([
      ['chk_3', 'created', null, 'local'],
      ['chk_2', 'created', null, 'local'],
      ['chk_1', 'created', null, 'local'],
    ])
    expect(Object.keys(local[0])).toEqual(Object.keys(live[0]))
    const csv = await h.run(CheckoutList, ['--no-refresh', '-o', 'csv'])
    expect(csv.stdout.split(/\r?\n/)[0]).toBe(Object.keys(live[0]).join(','))
  })

  it('a checkout the service no longer knows (404) keeps the local view and is named on stderr', async () => {
    writeLog([created('chk_gone', 1), created('chk_here', 2)])
    serviceHas('chk_here', {})
    h.pool.intercept({path: `${BASE}/checkouts/chk_gone`, method: 'GET'}).reply(404, {code: 'PY0001', message: 'Checkout chk_gone not found'}, {headers: JSON_HEADERS})
    const r = await h.run(CheckoutList, ['--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).checkouts.map((c: any) => [c.checkoutId, c.state, c.source])).toEqual([
      ['chk_here', 'paid', 'service'],
      ['chk_gone', 'created', 'local'],
    ])
    expect(r.stderr).toBe("Warning: the service does not know chk_gone (404): shown as this machine's log tells (source local)\n")
  })


  it('a read the service refuses (401) is the exit code of that refusal, with the local view offered', async () => {
    writeLog([created('chk_1', 1)])
    h.pool.intercept({path: `${BASE}/checkouts/chk_1`, method: 'GET'}).reply(401, {code: 'K003', message: 'Invalid API key'}, {headers: JSON_HEADERS})
    const r = await h.run(CheckoutList, [])
    expect(r.code).toBe(3)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain("Try this: The list as this machine's log tells it, nothing sent: opsctl checkout list --no-refresh")
  })
})

describe('audit list --profile', () => {
  it("keeps one profile's lines, and shows the profile as a column", async () => {
    writeLog([created('chk_1', 1), created('chk_ci', 2, 'ci-smoke'), created('chk_2', 3)])
    const mine = JSON.parse((await h.run(AuditList, ['--profile', 'sandbox', '--json'])).stdout).entries
    expect(mine.map((e: any) => e.checkoutId)).toEqual(['chk_1', 'chk_2'])
    const table = await h.run(AuditList, ['-p', 'ci-smoke'])
    expect(table.stdout.split('\n')[0].split('\t').slice(0, 2)).toEqual(['time', 'profile'])
    expect(table.stdout).toContain('\tci-smoke\t')
    expect(table.stdout).not.toContain('chk_1')
  })
})
