/**
 * No double money movement: the sandbox's scripted faults cut the connection of a void or refund
 * before or after the service acted, and the CLI (in-process, test/helpers/command.ts, against the
 * real sandbox in this process) must say what really happened, never send it twice, and leave a
 * rerun safe.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as delay} from 'node:timers/promises'
import {isDeepStrictEqual} from 'node:util'
import {beforeAll, describe, expect, it} from 'vitest'

import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import RefundCreate from '../../src/commands/refund/create.js'
import RefundList from '../../src/commands/refund/list.js'
import SandboxClock from '../../src/commands/sandbox/clock.js'
import {paidCheckout} from '../helpers/checkout.js'
import {runJson as json, runCommand as run} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

// 10:00 in Manila (UTC+8): the whole transaction day is ahead for the voids.
const START = '2026-11-21T02:00:00Z'

const file = sandboxPerFile({clock: START})

async function fault(op: string, kind: string, ms?: number): Promise<void> {
  await file.sandbox.control('faults', {next: [{op, kind, ...(ms === undefined ? {} : {ms})}]})
}

const paymentStatus = async (id: string) => (await json(CheckoutGet, [id])).paymentStatus
const refundsOf = async (id: string) => (await json(RefundList, [id])).refunds

/** Reads the sandbox's state as the service, without the CLI: cheap enough to poll. */
async function asService(path: string): Promise<any> {
  const res = await fetch(`${file.sandbox.checkoutUrl}/v1${path}`, {
    headers: {authorization: `Basic ${Buffer.from(`${file.sandbox.secretKey}:`).toString('base64')}`},
  })
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`)
  return res.json()
}

/** Waits until the sandbox shows what a request still in flight finally did; the test's timeout bounds the wait. */
async function until<T>(read: () => Promise<T>, expected: T): Promise<void> {
  while (!isDeepStrictEqual(await read(), expected)) await delay(100)
}

/** The audit lines of one operation on one checkout, oldest first. */
function auditOf(operation: string, checkoutId: string): {outcome: string; reconciled?: boolean}[] {
  return readFileSync(join(file.user.dir, 'audit.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.operation === operation && l.checkoutId === checkoutId)
}

// The service answers after the CLI's --timeout ran out: the change is still on its way when the
// CLI reads the checkout back, and lands afterwards.
const SLOW_MS = 4000

describe('void with a lost answer', () => {
  it('drop-after-commit: the void happened -> reported applied, exit 0, the checkout is VOIDED', async () => {
    const id = await paidCheckout('120.00')
    await fault('voidCheckout', 'drop-after-commit')
    const result = await run(CheckoutVoid, [id, '--reason', 'duplicate order', '--yes', '--json', '--timeout', '5'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({checkoutId: id, voidStatus: 'SUCCESS', amount: '120.00', reconciled: true})
    expect(result.stderr).toContain('the answer was lost; reconciled: applied')
    expect((await file.sandbox.control('faults')).pending).toEqual([])
    expect(await paymentStatus(id)).toBe('VOIDED')
  })

  it('drop: the void did not happen -> "not applied", exit 7, still PAYMENT_SUCCESS; running it again voids it once', async () => {
    const id = await paidCheckout('80.00')
    await fault('voidCheckout', 'drop')
    const result = await run(CheckoutVoid, [id, '--reason', 'duplicate order', '--yes', '--timeout', '5'])
    expect(result.code).toBe(7)
    expect(result.stderr).toContain('not applied')
    expect(result.stderr).toContain('safe to run the same command again')
    expect(result.stdout).toBe('')
    expect(await paymentStatus(id)).toBe('PAYMENT_SUCCESS')

    const again = await json(CheckoutVoid, [id, '--reason', 'duplicate order', '--yes'])
    expect(again).toMatchObject({voidStatus: 'SUCCESS'})
    expect(again.reconciled).toBeUndefined()
    expect(await paymentStatus(id)).toBe('VOIDED')
  })
})

describe('void still in flight when the CLI gives up', () => {
  it('never says "not applied" for a void the service then applies: exit 7, unknown, the command to check', async () => {
    const id = await paidCheckout('140.00')
    await fault('voidCheckout', 'delay', SLOW_MS)
    const result = await run(CheckoutVoid, [id, '--reason', 'late', '--yes', '--timeout', '1'])
    expect(result.code).toBe(7)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('timed out after 1 s')
    expect(result.stderr).toContain('The outcome is unknown')
    expect(result.stderr).not.toContain('not applied')
    expect(result.stderr).toContain(`Try this: opsctl checkout get ${id}`)

    // The delayed void lands after the CLI gave up; what the CLI wrote stays true.
    await until(async () => (await asService(`/checkouts/${id}`)).paymentStatus, 'VOIDED')
    const lines = auditOf('voidCheckout', id)
    expect(lines.map((l) => [l.outcome, l.reconciled === true])).toEqual([
      ['unknown', false],
      ['unknown', true],
    ])

    const rerun = await run(CheckoutVoid, [id, '--reason', 'late', '--yes'])
    expect(rerun.code).toBe(5)
    expect(await paymentStatus(id)).toBe('VOIDED')
  })
})

describe('refund with a lost answer', () => {
  const ids: string[] = []

  // Three paid checkouts, then the next day: refunds are open (and voids closed).
  beforeAll(async () => {
    for (const amount of ['300.00', '300.00', '300.00']) ids.push(await paidCheckout(amount))
    expect((await run(SandboxClock, ['--advance', '24h'])).code).toBe(0)
  })

  it('drop-after-commit: the refund happened -> reported applied, exit 0, exactly one refund exists', async () => {
    const id = ids[0]
    await fault('refundCheckout', 'drop-after-commit')
    const result = await run(RefundCreate, [id, '--reason', 'one cup broke', '--amount', '120.50', '--yes', '--json', '--timeout', '5'])
    expect(result.code).toBe(0)
    const out = JSON.parse(result.stdout)
    expect(out).toMatchObject({checkoutId: id, status: 'SUCCESS', amount: '120.50', currency: 'PHP', kind: 'partial', reconciled: true})
    expect(result.stderr).toContain('the answer was lost; reconciled: applied')

    const refunds = await refundsOf(id)
    expect(refunds).toHaveLength(1)
    expect(refunds[0]).toMatchObject({id: out.refundId, status: 'SUCCESS', amount: {value: '120.50', currency: 'PHP'}})
    expect((await json(CheckoutGet, [id])).refundedAmount).toBe('120.50')
  })

  it('drop: the refund did not happen -> "not applied", exit 7, zero refunds; running it again refunds once', async () => {
    const id = ids[1]
    await fault('refundCheckout', 'drop')
    const result = await run(RefundCreate, [id, '--reason', 'order cancelled', '--full', '--yes', '--timeout', '5'])
    expect(result.code).toBe(7)
    expect(result.stderr).toContain('not applied')
    expect(result.stderr).toContain('safe to run the same command again')
    expect(await refundsOf(id)).toEqual([])

    const again = await json(RefundCreate, [id, '--reason', 'order cancelled', '--full', '--yes'])
    expect(again).toMatchObject({status: 'SUCCESS', amount: '300.00', kind: 'complete'})
    expect(await refundsOf(id)).toHaveLength(1)
  })

  it('never says "not applied" for a refund the service then applies: exit 7, unknown, the command to check; a rerun is refused', async () => {
    const id = ids[2]
    await fault('refundCheckout', 'delay', SLOW_MS)
    const result = await run(RefundCreate, [id, '--reason', 'late', '--full', '--yes', '--timeout', '1'])
    expect(result.code).toBe(7)
    expect(result.stderr).toContain('timed out after 1 s')
    expect(result.stderr).toContain('The outcome is unknown')
    expect(result.stderr).not.toContain('not applied')
    expect(result.stderr).toContain(`Try this: opsctl refund list ${id}`)

    // The slow request lands after the CLI gave up.
    await until(async () => (await asService(`/checkouts/${id}/refunds`)).map((r: any) => r.status), ['SUCCESS'])
    expect(auditOf('refundCheckout', id).map((l) => [l.outcome, l.reconciled === true])).toEqual([
      ['unknown', false],
      ['unknown', true],
    ])

    const rerun = await run(RefundCreate, [id, '--reason', 'late', '--full', '--yes'])
    expect(rerun.code).toBe(5)
    expect(rerun.stderr).toContain('only one refund')
    expect(await refundsOf(id)).toHaveLength(1)
  })
})
