/**
 * The audit log as the merchant's history against a real sandbox: six refused or declined money
 * attempts (a void after the window, a refund over the amount, a refund in another currency, a
 * second refund, a refund the service answers FAILED, and a refund declined at the prompt) each
 * leave one audit line with its outcome, code and reason, and change nothing at the service; a
 * partial refund says it is the checkout's only one; `audit list` filters and validates; `checkout
 * list` shows every checkout created here. The sandbox is a real process, and so is the run at the
 * prompt (a pseudo-terminal: the built CLI, `npm run build` first); the other commands run in-process.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import AuditList from '../../src/commands/audit/list.js'
import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutList from '../../src/commands/checkout/list.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import RefundCreate from '../../src/commands/refund/create.js'
import SandboxClock from '../../src/commands/sandbox/clock.js'
import {isolate, runCommand, type Runnable} from '../helpers/command.js'
import {runInTerminal, type Sandbox, startSandbox} from './harness.js'

// 10:00 in Manila (UTC+8): the whole transaction day is ahead.
const START = '2026-11-21T02:00:00Z'

let sandbox: Sandbox
let env: ReturnType<typeof isolate>
/** What points opsctl at this sandbox and this config folder, the process at the terminal too. */
let cliEnv: Record<string, string>

beforeAll(async () => {
  sandbox = await startSandbox(['--clock', START, '--seed'])
  env = isolate()
  cliEnv = {
    OPSCTL_CONFIG_DIR: env.dir,
    OPSCTL_HEALTH_URL: sandbox.healthUrl,
    OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl,
    OPSCTL_SANDBOX_TOKEN: sandbox.token,
  }
  Object.assign(process.env, cliEnv)
})

afterAll(async () => {
  env?.cleanup()
  await sandbox?.stop()
})

/** Runs with --json, expects exit 0, returns what it printed. */
async function json(Cmd: Runnable, argv: string[]): Promise<any> {
  const result = await runCommand(Cmd, [...argv, '--json'])
  expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0)
  return JSON.parse(result.stdout)
}

/** A checkout created and paid (a successful payment); its id. */
async function paidCheckout(amount: string): Promise<string> {
  const {checkoutId} = await json(CheckoutCreate, ['--amount', amount, '--success-url', 'https://shop.example/ok'])
  expect((await json(CheckoutPay, [checkoutId, '--card', '5123456789012346'])).paymentStatus).toBe('PAYMENT_SUCCESS')
  return checkoutId
}

/** The checkouts created in this file. */
const ids = {partial: '', late: '', declined: '', failing: ''}

async function expectRefused(Cmd: Runnable, argv: string[], code: number, message: string): Promise<void> {
  const result = await runCommand(Cmd, argv)
  expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(code)
  expect(result.stderr).toContain(message)
  expect(result.stdout).toBe('')
}

/** What the service holds, read as the service's own client would (no CLI, no audit line). */
async function asService(path: string): Promise<any> {
  const res = await fetch(`${sandbox.checkoutUrl}/v1${path}`, {
    headers: {authorization: `Basic ${Buffer.from(`${sandbox.secretKey}:`).toString('base64')}`},
  })
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`)
  return res.json()
}

function auditLines(): any[] {
  return readFileSync(join(env.dir, 'audit.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
}

describe('merchant history', () => {
  it("finds the sandbox's seeded paid checkouts with --sandbox-seeded; the local list starts empty", async () => {
    const seeded = await json(CheckoutList, ['--sandbox-seeded'])
    expect(seeded.checkouts.map((c: any) => [c.reference, c.amount, c.currency, c.paymentStatus, c.possible])).toEqual([
      ['SEED-PAID-TODAY', '1500.00', 'PHP', 'PAYMENT_SUCCESS', 'void'],
      ['SEED-PAID-EARLIER', '1500.00', 'PHP', 'PAYMENT_SUCCESS', 'refund'],
    ])
    // The ids work with the other commands.
    const got = await json(CheckoutGet, [seeded.checkouts[1].checkoutId])
    expect(got.requestReferenceNumber).toBe('SEED-PAID-EARLIER')

    const empty = await runCommand(CheckoutList, [])
    expect(empty.code).toBe(0)
    expect(empty.stderr).toContain('No checkouts created from this machine with profile sandbox yet')
    expect(empty.stderr).toContain('opsctl checkout list --sandbox-seeded')
  })

  it('creates and pays four checkouts, then the day passes', async () => {
    ids.partial = await paidCheckout('70.00')
    ids.late = await paidCheckout('30.00')
    ids.declined = await paidCheckout('50.00')
    ids.failing = await paidCheckout('20.00')
    expect((await runCommand(SandboxClock, ['--advance', '24h'])).code).toBe(0)
  })

  it('refuses a void after the window, a refund over the amount and one in another currency, sending none of them', async () => {
    await expectRefused(CheckoutVoid, [ids.late, '--reason', 'late void', '--yes'], 5, 'void window closed at 2026-11-21 23:59:59 +08:00')
    await expectRefused(
      RefundCreate,
      [ids.partial, '--reason', 'over the amount', '--amount', '80.00', '--yes'],
      5,
      'a refund of 80.00 PHP is more than the 70.00 PHP',
    )
    await expectRefused(
      RefundCreate,
      [ids.partial, '--reason', 'wrong currency', '--amount', '10.00', '--currency', 'USD', '--yes'],
      5,
      "the refund currency USD is not the checkout's currency PHP",
    )
    expect((await asService(`/checkouts/${ids.late}`)).paymentStatus).toBe('PAYMENT_SUCCESS')
    expect(await asService(`/checkouts/${ids.partial}/refunds`)).toEqual([])
  })

  it("a partial refund's result says it is the only refund and what stays unrefundable; a second refund is refused", async () => {
    const refund = await json(RefundCreate, [ids.partial, '--reason', 'one cup broken', '--amount', '10.00', '--yes'])
    expect(refund).toMatchObject({amount: '10.00', currency: 'PHP', kind: 'partial', onlyRefund: true, unrefundable: '60.00', status: 'SUCCESS'})

    await expectRefused(
      RefundCreate,
      [ids.partial, '--reason', 'second refund', '--amount', '5.00', '--yes'],
      5,
      'only one refund (complete or partial) is allowed per checkout',
    )
    expect((await asService(`/checkouts/${ids.partial}/refunds`)).map((r: any) => r.id)).toEqual([refund.refundId])
  })

  it('at a terminal, the prompt says what the refund uses up; answering no sends nothing', async () => {
    const question = `Refund 10.00 PHP of checkout ${ids.declined}? This is its only refund: the other 40.00 PHP can never be refunded.`
    const result = await runInTerminal(['refund', 'create', ids.declined, '--reason', 'chipped cup', '--amount', '10.00'], [{when: '(y/N)', send: 'n\r'}], {
      env: cliEnv,
    })
    expect(result.stdout).toContain(question)
    expect(result.stdout).toContain('Not confirmed; nothing was sent')
    expect(result.code).toBe(2)
    expect(await asService(`/checkouts/${ids.declined}/refunds`)).toEqual([])

    // Without a terminal there is nobody to ask: exit 2 before anything is read or sent.
    await expectRefused(RefundCreate, [ids.declined, '--reason', 'chipped cup', '--amount', '10.00'], 2, 'pass --yes to confirm')
  })

  it('a refund the service answers FAILED is reported as refused (exit 5), with its refund id', async () => {
    await sandbox.control('checkout/next-refund', {status: 'FAILED'})
    await expectRefused(RefundCreate, [ids.failing, '--reason', 'card closed', '--full', '--yes'], 5, 'FAILED: nothing was refunded')
    const refunds = await asService(`/checkouts/${ids.failing}/refunds`)
    expect(refunds.map((r: any) => r.status)).toEqual(['FAILED'])
  })

  it('the seven refused or declined attempts are seven audit lines with their outcomes, codes, amounts and reasons', async () => {
    const lines = auditLines()
    const failedRefundId = (await asService(`/checkouts/${ids.failing}/refunds`))[0].id
    const notApplied = lines.filter((l) => l.outcome !== 'applied')
    expect(notApplied.map((l) => [l.operation, l.outcome, l.code, l.checkoutId, l.amount, l.reason])).toEqual([
      ['voidCheckout', 'refused by rule', 'PY0073', ids.late, {value: '30.00', currency: 'PHP'}, 'late void'],
      ['refundCheckout', 'refused by rule', 'PY0048', ids.partial, {value: '80.00', currency: 'PHP'}, 'over the amount'],
      ['refundCheckout', 'refused by rule', 'PY0048', ids.partial, {value: '10.00', currency: 'USD'}, 'wrong currency'],
      ['refundCheckout', 'refused by rule', 'PY0082', ids.partial, {value: '5.00', currency: 'PHP'}, 'second refund'],
      ['refundCheckout', 'declined', undefined, ids.declined, {value: '10.00', currency: 'PHP'}, 'chipped cup'],
      // no --yes without a terminal: refused before anything was read; the amount as typed
      ['refundCheckout', 'refused locally', 'consent-required', ids.declined, {value: '10.00'}, 'chipped cup'],
      ['refundCheckout', 'refused', undefined, ids.failing, {value: '20.00', currency: 'PHP'}, 'card closed'],
    ])
    expect(notApplied[6].refundId).toBe(failedRefundId)
    for (const line of notApplied.slice(0, 6)) expect(line.requestId).toBeUndefined()
    // The applied ones: four creations and the one partial refund. Nothing for the reads.
    expect(lines.filter((l) => l.outcome === 'applied').map((l) => l.operation)).toEqual([
      'initiateCheckout',
      'initiateCheckout',
      'initiateCheckout',
      'initiateCheckout',
      'refundCheckout',
    ])
  })

  it('audit list filters by outcome (validated), operation, checkout and time, and its table shows ids and reasons', async () => {
    const byRule = await json(AuditList, ['--outcome', 'refused by rule'])
    expect(byRule.entries.map((e: any) => e.reason)).toEqual(['late void', 'over the amount', 'wrong currency', 'second refund'])

    const bogus = await runCommand(AuditList, ['--outcome', 'bogus'])
    expect(bogus.code).toBe(2)
    expect(bogus.stderr.split('\n')[0]).toContain('applied, refused, refused by rule, declined, refused locally, failed, unknown, not sent, not applied')

    const refunds = await json(AuditList, ['--operation', 'refundCheckout', '--checkout', ids.partial])
    expect(refunds.entries.map((e: any) => e.outcome)).toEqual(['refused by rule', 'refused by rule', 'applied', 'refused by rule'])

    const future = await json(AuditList, ['--since', '2999-01-01'])
    expect(future.entries).toEqual([])
    const everything = await json(AuditList, ['--since', '1h', '--until', '2999-01-01'])
    expect(everything.entries).toHaveLength(auditLines().length)

    const table = await runCommand(AuditList, ['--checkout', ids.failing])
    expect(table.code).toBe(0)
    const failed = auditLines().find((l) => l.outcome === 'refused')
    expect(table.stdout).toContain(failed.refundId)
    expect(table.stdout).toContain('card closed')
  })

  it('checkout list shows every checkout created in this test, newest first, with its state and last attempt, the same fields in every format', async () => {
    const {checkouts} = await json(CheckoutList, [])
    expect(checkouts.map((c: any) => [c.checkoutId, c.amount, c.currency, c.state, c.lastAttempt?.replace(/ PY\d+$/, '')])).toEqual([
      [ids.failing, '20.00', 'PHP', 'paid', 'refund refused'],
      [ids.declined, '50.00', 'PHP', 'paid', 'refund refused locally consent-required'],
      [ids.late, '30.00', 'PHP', 'paid', 'void refused by rule'],
      [ids.partial, '70.00', 'PHP', 'refunded 10.00', 'refund refused by rule'],
    ])
    const local = (await json(CheckoutList, ['--no-refresh'])).checkouts
    expect(local.map((c: any) => c.state)).toEqual(['created', 'created', 'created', 'refunded 10.00'])
    expect(Object.keys(local[0])).toEqual(Object.keys(checkouts[0]))
    const fields = Object.keys(checkouts[0])
    for (const c of checkouts) expect(Object.keys(c)).toEqual(fields)

    const ndjson = await runCommand(CheckoutList, ['-o', 'ndjson'])
    const lines = ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toEqual(checkouts)
    const csv = await runCommand(CheckoutList, ['-o', 'csv'])
    expect(csv.stdout.split(/\r?\n/)[0]).toBe(fields.join(','))
    for (const c of checkouts) {
      expect(c.reference).toMatch(/^opsctl-/)
      expect(Date.parse(c.createdAt)).not.toBeNaN()
    }

    const table = await runCommand(CheckoutList, [])
    for (const id of Object.values(ids)) expect(table.stdout).toContain(id)
    expect(table.stdout).toContain('void refused by rule PY0073')
  })

  it("a checkout paid on the hosted page, one declined and one left to expire read as such, with the service's times", async () => {
    const create = async (amount: string) => (await json(CheckoutCreate, ['--amount', amount, '--success-url', 'https://shop.example/ok'])).checkoutId as string
    const paid = await create('11.00')
    const declined = await create('12.00')
    const expired = await create('13.00')
    expect((await json(CheckoutPay, [paid, '--card', '5123456789012346'])).paymentStatus).toBe('PAYMENT_SUCCESS')
    expect((await json(CheckoutPay, [declined, '--fail'])).paymentStatus).toBe('PAYMENT_FAILED')
    // The local log saw none of it: all three were only created from here.
    const before = (await json(CheckoutList, ['--limit', '3', '--no-refresh'])).checkouts
    expect(before.map((c: any) => c.state)).toEqual(['created', 'created', 'created'])

    expect((await runCommand(SandboxClock, ['--advance', '2h'])).code).toBe(0)
    const {checkouts} = await json(CheckoutList, ['--limit', '3'])
    expect(checkouts.map((c: any) => [c.checkoutId, c.state, c.source])).toEqual([
      [expired, 'expired', 'service'],
      [declined, 'declined', 'service'],
      [paid, 'paid', 'service'],
    ])
    // times on the sandbox's clock (a day and more after this machine's START), as checkout get shows them
    const got = await json(CheckoutGet, [paid])
    expect(checkouts[2].createdAt).toBe(got.createdAt)
    expect(checkouts[2].stateAt).toBe(got.paymentDetails?.paymentAt ?? got.updatedAt)
    expect(checkouts[2].createdAt).toMatch(/^2026-11-22T/)
    expect(before[2].createdAt).not.toMatch(/^2026-11-22T/)

    const table = await runCommand(CheckoutList, ['--limit', '3'])
    expect(table.stdout).toMatch(new RegExp(`^${paid}\\t11\\.00\\tPHP\\tpaid\\t`, 'm'))
    expect(table.stdout).toMatch(new RegExp(`^${declined}\\t12\\.00\\tPHP\\tdeclined\\t`, 'm'))
    expect(table.stdout).toMatch(new RegExp(`^${expired}\\t13\\.00\\tPHP\\texpired\\t`, 'm'))
  })
})
