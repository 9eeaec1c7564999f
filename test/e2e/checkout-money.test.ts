/**
 * The checkout journey, in-process (test/helpers/command.ts) against the real sandbox in this
 * process: the payment page with its customization, a same-day void, and after the clock moves a
 * day, the void refused and one partial refund.
 */
import {describe, expect, it} from 'vitest'

import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import CustomizeSet from '../../src/commands/customize/set.js'
import RefundCreate from '../../src/commands/refund/create.js'
import RefundGet from '../../src/commands/refund/get.js'
import RefundList from '../../src/commands/refund/list.js'
import SandboxClock from '../../src/commands/sandbox/clock.js'
import {type CommandResult, runCommand, type Runnable} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

// 10:00 in Manila (UTC+8): the whole transaction day is ahead.
const START = '2026-11-21T02:00:00Z'
const CUSTOM = {
  logo: 'https://cdn.example/tea-logo.png',
  icon: 'https://cdn.example/favicon.ico',
  touch: 'https://cdn.example/touch-120.png',
  title: 'Tea House Manila',
  color: '#0a7d3b',
}

const file = sandboxPerFile({clock: START})
const outputs: string[] = []

async function run(Cmd: Runnable, argv: string[]): Promise<CommandResult> {
  const result = await runCommand(Cmd, argv)
  outputs.push(result.stdout, result.stderr)
  return result
}

async function json(Cmd: Runnable, argv: string[]): Promise<any> {
  const result = await run(Cmd, [...argv, '--json'])
  if (result.code !== 0) throw new Error(`${argv.join(' ')} exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

async function paidCheckout(amount: string): Promise<string> {
  const {checkoutId} = await json(CheckoutCreate, ['--amount', amount, '--success-url', 'https://shop.example/ok'])
  const paid = await json(CheckoutPay, [checkoutId])
  expect(paid.paymentStatus).toBe('PAYMENT_SUCCESS')
  return checkoutId
}

describe('checkout e2e: page, pay, void the same day', () => {
  let checkoutId: string
  let redirectUrl: string

  it('customize set -> checkout create -> the hosted page shows the customization', async () => {
    const set = await run(CustomizeSet, [
      '--logo-url',
      CUSTOM.logo,
      '--icon-url',
      CUSTOM.icon,
      '--apple-touch-icon-url',
      CUSTOM.touch,
      '--title',
      CUSTOM.title,
      '--color',
      CUSTOM.color,
    ])
    expect(set.code).toBe(0)

    const created = await json(CheckoutCreate, [
      '--item',
      'Oolong:2:150.25:OOL-1',
      '--item',
      'Scone:1:99.50',
      '--success-url',
      'https://shop.example/ok',
      '--failure-url',
      'https://shop.example/failed',
      '--cancel-url',
      'https://shop.example/cart',
    ])
    ;({checkoutId, redirectUrl} = created)
    expect(created.amount).toBe('400.00')
    expect(redirectUrl).toBe(`${file.sandbox.origin}/checkout/pay/${checkoutId}`)

    const page = await fetch(redirectUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const html = await page.text()
    expect(html).toContain(`<title>${CUSTOM.title}</title>`)
    expect(html).toContain(`src="${CUSTOM.logo}"`)
    expect(html).toContain(`<link rel="icon" href="${CUSTOM.icon}">`)
    expect(html).toContain(`<link rel="apple-touch-icon" href="${CUSTOM.touch}">`)
    expect(html).toContain(`background:${CUSTOM.color}`)
    expect(html).toContain('PHP 400.00')
  })

  it('checkout pay (success) -> checkout get shows COMPLETED / PAYMENT_SUCCESS', async () => {
    const paid = await json(CheckoutPay, [checkoutId, '--card', '5123456789012346', '--expiry', '12/29', '--cvc', '123'])
    expect(paid).toMatchObject({
      paymentStatus: 'PAYMENT_SUCCESS',
      redirectedTo: 'https://shop.example/ok',
      card: {scheme: 'MASTERCARD', last4: '2346'},
    })
    const record = await json(CheckoutGet, [checkoutId])
    expect(record).toMatchObject({id: checkoutId, status: 'COMPLETED', paymentStatus: 'PAYMENT_SUCCESS', paymentType: 'CREDIT_CARD'})
    expect(record.totalAmount).toEqual({value: '400.00', currency: 'PHP'})

    const table = await run(CheckoutGet, [checkoutId])
    expect(table.stdout).toMatch(/paymentStatus\tPAYMENT_SUCCESS/)
  })

  it('checkout void succeeds the same day, and a second void is refused (exit 5)', async () => {
    const voided = await json(CheckoutVoid, [checkoutId, '--reason', 'customer changed their mind', '--yes'])
    expect(voided).toMatchObject({checkoutId, voidStatus: 'SUCCESS', amount: '400.00', currency: 'PHP'})
    expect((await json(CheckoutGet, [checkoutId])).paymentStatus).toBe('VOIDED')
    const again = await run(CheckoutVoid, [checkoutId, '--reason', 'again', '--yes'])
    expect(again.code).toBe(5)
    expect(again.stderr).toContain('already voided')
  })

  it('a void without --yes and without a terminal sends nothing (exit 2)', async () => {
    const id = await paidCheckout('12.00')
    const result = await run(CheckoutVoid, [id, '--reason', 'x'])
    expect(result.code).toBe(2)
    expect((await json(CheckoutGet, [id])).paymentStatus).toBe('PAYMENT_SUCCESS')
  })
})

describe('checkout e2e: the next day only a refund, and only one', () => {
  let checkoutId: string

  it('a second paid checkout -> sandbox clock --advance 24h -> checkout void refused (exit 5, says refund)', async () => {
    checkoutId = await paidCheckout('1500.00')
    const early = await run(RefundCreate, [checkoutId, '--reason', 'too early', '--full', '--yes'])
    expect(early.code).toBe(5)
    expect(early.stderr).toContain('use `opsctl checkout void`')

    const clock = await run(SandboxClock, ['--advance', '24h'])
    expect(clock.code).toBe(0)

    const refused = await run(CheckoutVoid, [checkoutId, '--reason', 'late', '--yes'])
    expect(refused.code).toBe(5)
    expect(refused.stderr).toContain('void window closed at 2026-11-21 23:59:59 +08:00; use `opsctl refund create`')
    expect((await json(CheckoutGet, [checkoutId])).paymentStatus).toBe('PAYMENT_SUCCESS')
  })

  it('refund create --amount (partial) -> a second refund create refused (exit 5)', async () => {
    const refund = await json(RefundCreate, [checkoutId, '--reason', 'one cup broke', '--amount', '250.75', '--yes'])
    expect(refund).toMatchObject({checkoutId, status: 'SUCCESS', amount: '250.75', currency: 'PHP', kind: 'partial'})
    expect(refund.refundId).toBeTruthy()

    const second = await run(RefundCreate, [checkoutId, '--reason', 'the rest', '--full', '--yes'])
    expect(second.code).toBe(5)
    expect(second.stderr).toContain(`already has refund ${refund.refundId}`)
    expect(second.stderr).toContain('only one refund')

    const record = await json(CheckoutGet, [checkoutId])
    expect(record.refundedAmount).toBe('250.75')
  })

  it('refund list / refund get show the one refund', async () => {
    const {refunds} = await json(RefundList, [checkoutId])
    expect(refunds).toHaveLength(1)
    const [only] = refunds
    expect(only).toMatchObject({
      checkout: checkoutId,
      status: 'SUCCESS',
      reason: 'one cup broke',
      amount: {value: '250.75', currency: 'PHP'},
    })
    expect(await json(RefundGet, [checkoutId, only.id])).toEqual(only)
    const table = await run(RefundList, [checkoutId])
    expect(table.stdout).toMatch(new RegExp(`^${only.id}\\tSUCCESS\\t250\\.75\\t`, 'm'))
    expect((await run(RefundGet, [checkoutId, 'rfd_nope'])).code).toBe(4)
  })

  it('an amount over what was paid is refused (exit 5); a FAILED refund is kept and does not use up the one refund', async () => {
    const id = await paidCheckout('80.00')
    await run(SandboxClock, ['--advance', '24h'])
    const over = await run(RefundCreate, [id, '--reason', 'x', '--amount', '80.01', '--yes'])
    expect(over.code).toBe(5)
    expect(over.stderr).toContain('is more than the 80.00 PHP')

    await file.sandbox.control('checkout/next-refund', {status: 'FAILED'})
    const failed = await run(RefundCreate, [id, '--reason', 'bank said no', '--full', '--yes'])
    expect(failed.code).toBe(5)
    expect(failed.stderr).toContain('FAILED: nothing was refunded')

    const full = await json(RefundCreate, [id, '--reason', 'retry', '--full', '--yes'])
    expect(full).toMatchObject({status: 'SUCCESS', amount: '80.00', kind: 'complete'})
    const {refunds} = await json(RefundList, [id])
    expect(refunds.map((r: any) => r.status)).toEqual(['FAILED', 'SUCCESS'])
    expect((await json(CheckoutGet, [id])).paymentStatus).toBe('REFUNDED')
  })

  it('never shows a key or a full card number', () => {
    const all = outputs.join('\n')
    expect(all).not.toContain(file.sandbox.secretKey)
    expect(all).not.toContain(file.sandbox.publicKey)
    expect(all).not.toContain('5123456789012346')
  })
})
