/**
 * The outcomes of the hosted page (declined card, cancel, expiry), webhooks, customization, and
 * input refused before anything is sent: the commands in-process (test/helpers/command.ts) against
 * the real sandbox in this process.
 */
import {createServer} from 'node:http'
import {describe, expect, it} from 'vitest'

import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import CustomizeGet from '../../src/commands/customize/get.js'
import CustomizeRemove from '../../src/commands/customize/remove.js'
import CustomizeSet from '../../src/commands/customize/set.js'
import ProfileAdd from '../../src/commands/profile/add.js'
import WebhookDelete from '../../src/commands/webhook/delete.js'
import WebhookList from '../../src/commands/webhook/list.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import WebhookUpdate from '../../src/commands/webhook/update.js'
import {runJson as json, runCommand as run} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

const START = '2026-11-21T02:00:00Z'

const file = sandboxPerFile({clock: START})

async function create(): Promise<string> {
  const {checkoutId} = await json(CheckoutCreate, [
    '--amount',
    '42.00',
    '--success-url',
    'https://shop.example/ok',
    '--failure-url',
    'https://shop.example/failed',
    '--cancel-url',
    'https://shop.example/cart',
  ])
  return checkoutId
}

async function eventsOf(checkoutId: string): Promise<string[]> {
  const {events} = await file.sandbox.control('events')
  return events.filter((e: any) => e.checkoutId === checkoutId).map((e: any) => e.type)
}

describe('hosted page outcomes', () => {
  it('a declined card -> PAYMENT_FAILED, sent to the failure URL, CHECKOUT_FAILURE raised', async () => {
    const id = await create()
    const paid = await json(CheckoutPay, [id, '--fail'])
    expect(paid).toMatchObject({paymentStatus: 'PAYMENT_FAILED', redirectedTo: 'https://shop.example/failed', card: {last4: '2662'}})
    expect(await json(CheckoutGet, [id])).toMatchObject({status: 'COMPLETED', paymentStatus: 'PAYMENT_FAILED'})
    expect(await eventsOf(id)).toEqual(['CHECKOUT_FAILURE'])
    const voided = await run(CheckoutVoid, [id, '--reason', 'x', '--yes'])
    expect(voided.code).toBe(5)
    expect(voided.stderr).toContain('payment status is PAYMENT_FAILED')
  })

  it('the VISA test card succeeds; an unknown card is declined', async () => {
    const visa = await create()
    expect((await json(CheckoutPay, [visa, '--card', '4123450131001381'])).paymentStatus).toBe('PAYMENT_SUCCESS')
    const other = await create()
    expect((await json(CheckoutPay, [other, '--card', '4111111111111111'])).paymentStatus).toBe('PAYMENT_FAILED')
  })

  it('a cancel -> dropout: PAYMENT_CANCELLED, sent to the cancel URL, CHECKOUT_DROPOUT raised', async () => {
    const id = await create()
    const cancelled = await json(CheckoutPay, [id, '--cancel'])
    expect(cancelled).toMatchObject({paymentStatus: 'PAYMENT_CANCELLED', redirectedTo: 'https://shop.example/cart'})
    expect(await eventsOf(id)).toEqual(['CHECKOUT_DROPOUT'])
    const again = await run(CheckoutPay, [id])
    expect(again.code).toBe(5)
    expect(again.stderr).toContain('can no longer be paid')
  })

  it('the page form works as a browser posts it (urlencoded, 303 to the merchant)', async () => {
    const id = await create()
    const res = await fetch(`${file.sandbox.checkoutUrl}/pay/${id}`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({action: 'pay', cardNumber: '5123 4567 8901 2346', expiry: '12/29', cvc: '123'}).toString(),
      redirect: 'manual',
    })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('https://shop.example/ok')
  })

  it('an unpaid checkout expires after an hour on the sandbox clock: a dropout', async () => {
    const id = await create()
    await file.sandbox.control('clock', {advance: '61m'})
    expect(await json(CheckoutGet, [id])).toMatchObject({status: 'EXPIRED', paymentStatus: 'PAYMENT_EXPIRED'})
    expect(await eventsOf(id)).toEqual(['CHECKOUT_DROPOUT'])
    expect((await fetch(`${file.sandbox.checkoutUrl}/pay/${id}`)).status).toBe(409)
  })

  it('an unknown checkout is exit 4 for get and pay', async () => {
    expect((await run(CheckoutGet, ['chk_nope'])).code).toBe(4)
    expect((await run(CheckoutPay, ['chk_nope'])).code).toBe(4)
  })
})

describe('webhooks and customization', () => {
  it('webhook register / list / update / delete, one per event name', async () => {
    const success = await json(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'https://shop.example/hooks/paid'])
    expect(success).toMatchObject({name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/hooks/paid'})
    const dup = await run(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'https://other.example/'])
    expect(dup.code).toBe(5)
    expect(dup.stderr).toContain('PY0039')

    const dropout = await json(WebhookRegister, ['--name', 'CHECKOUT_DROPOUT', '--url', 'https://shop.example/hooks/gone'])
    const {webhooks} = await json(WebhookList, [])
    expect(webhooks.map((w: any) => w.name).sort()).toEqual(['CHECKOUT_DROPOUT', 'CHECKOUT_SUCCESS'])

    const updated = await json(WebhookUpdate, [dropout.id, '--url', 'https://shop.example/hooks/v2/gone'])
    expect(updated).toMatchObject({id: dropout.id, name: 'CHECKOUT_DROPOUT', callbackUrl: 'https://shop.example/hooks/v2/gone'})
    const clash = await run(WebhookUpdate, [dropout.id, '--name', 'CHECKOUT_SUCCESS'])
    expect(clash.code).toBe(5)

    expect((await run(WebhookDelete, [success.id])).code).toBe(2)
    expect(await json(WebhookDelete, [success.id, '--yes'])).toEqual({deleted: success.id})
    expect((await run(WebhookDelete, [success.id, '--yes'])).code).toBe(4)
    const after = await json(WebhookList, [])
    expect(after.webhooks.map((w: any) => w.id)).toEqual([dropout.id])
  })

  it('a payment is delivered to the CHECKOUT_SUCCESS webhook as the checkout record', async () => {
    const received: any[] = []
    let heard: () => void
    const delivered = new Promise<void>((resolve) => (heard = resolve))
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        received.push(JSON.parse(body))
        res.end('ok')
        heard()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as {port: number}
      await json(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', `http://127.0.0.1:${port}/hook`])
      const id = await create()
      await json(CheckoutPay, [id])
      await delivered
      expect(received).toHaveLength(1)
      expect(received[0]).toMatchObject({id, paymentStatus: 'PAYMENT_SUCCESS', totalAmount: {value: '42.00', currency: 'PHP'}})
      expect(JSON.stringify(received[0])).not.toContain('5123456789012346')
    } finally {
      server.close()
    }
  })

  it('customize get / remove', async () => {
    expect((await run(CustomizeGet, [])).code).toBe(4)
    await json(CustomizeSet, [
      '--logo-url',
      'https://cdn.example/logo.svg',
      '--icon-url',
      'https://cdn.example/icon.ico',
      '--apple-touch-icon-url',
      'https://cdn.example/touch.png',
      '--title',
      'Shop',
      '--color',
      '#357',
    ])
    expect(await json(CustomizeGet, [])).toMatchObject({customTitle: 'Shop', colorScheme: '#357'})
    expect((await run(CustomizeRemove, [])).code).toBe(2)
    expect((await json(CustomizeRemove, ['--yes'])).removed).toBe(true)
    expect((await run(CustomizeGet, [])).code).toBe(4)
    const id = await create()
    const html = await (await fetch(`${file.sandbox.checkoutUrl}/pay/${id}`)).text()
    expect(html).toContain('<title>Checkout</title>')
  })
})

describe('refused before sending (exit 2)', () => {
  it('a three-decimal amount and a bad colour never reach the sandbox', async () => {
    const amount = await run(CheckoutCreate, ['--amount', '19.999', '--verbose'])
    expect(amount.code).toBe(2)
    expect(amount.stderr).toContain('at most two decimals')
    expect(amount.stderr).not.toContain('> POST')

    const colour = await run(CustomizeSet, [
      '--logo-url',
      'https://cdn.example/logo.png',
      '--icon-url',
      'https://cdn.example/icon.ico',
      '--apple-touch-icon-url',
      'https://cdn.example/touch.png',
      '--title',
      'Shop',
      '--color',
      'teal',
      '--verbose',
    ])
    expect(colour.code).toBe(2)
    expect(colour.stderr).toContain('--color must be a hex colour')
    expect(colour.stderr).not.toContain('> POST')
    expect((await run(CustomizeGet, [])).code).toBe(4)
  })

  it('checkout pay on a production profile says it is sandbox-only (exit 2)', async () => {
    const add = await run(ProfileAdd, [
      'live',
      '--env',
      'production',
      '--health-url',
      'https://health.example.com',
      '--checkout-url',
      'https://pay.example.com',
      '--public-key',
      'pk-live-x',
    ])
    expect(add.code).toBe(0)
    const res = await run(CheckoutPay, ['chk_1', '--profile', 'live'], {
      env: {OPSCTL_CHECKOUT_URL: undefined, OPSCTL_HEALTH_URL: undefined},
    })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('sandbox')
  })
})

describe('the hosted page for a buyer', () => {
  const page = async (id: string, form?: Record<string, string>) => {
    const res = await fetch(`${file.sandbox.checkoutUrl}/pay/${id}`, {
      redirect: 'manual',
      ...(form ? {body: new URLSearchParams(form).toString(), headers: {'content-type': 'application/x-www-form-urlencoded'}, method: 'POST'} : {}),
    })
    return {html: await res.text(), status: res.status}
  }

  it('a phone gets a numeric keyboard for every card field', async () => {
    const {html} = await page(await create())
    for (const field of ['cardNumber', 'expiry', 'cvc']) expect(html).toMatch(new RegExp(`<input id="${field}"[^>]*inputmode="numeric"`))
  })

  it('after a mistake the title says so first', async () => {
    const {html, status} = await page(await create(), {action: 'pay', cardNumber: '4111', cvc: '123', expiry: '12/30'})
    expect(status).toBe(400)
    expect(html).toContain('<title>Error: Enter a card number of 13 to 19 digits. · Checkout</title>')
  })

  it('a declined checkout shows the amount not charged and the way back to the shop, titled by what happened', async () => {
    const id = await create()
    expect((await json(CheckoutPay, [id, '--fail'])).redirectedTo).toBe('https://shop.example/failed')
    const {html, status} = await page(id)
    expect(status).toBe(409)
    expect(html).toContain('<title>Payment declined · Checkout</title>')
    expect(html).toContain('PHP 42.00 was not charged.')
    expect(html).toContain('<a href="https://shop.example/failed">Back to the shop</a>')
  })

  it("any hex colour is accepted, by customize set (a warning naming the contrast) and by the sandbox; the page's button text is black or white, whichever reads", async () => {
    const flags = ['--logo-url', 'https://cdn.example/l.png', '--icon-url', 'https://cdn.example/i.ico', '--apple-touch-icon-url', 'https://cdn.example/t.png', '--title', 'Shop']
    const brand = await run(CustomizeSet, [...flags, '--color', '#368d5c'])
    expect(brand.code).toBe(0)
    expect(brand.stderr).toContain('Warning: --color: white text on #368d5c has a contrast of 4.10:1')
    expect((await json(CustomizeGet, [])).colorScheme).toBe('#368d5c')
    const buttonText = async () => /button\.pay\{[^}]*;color:(#[\da-f]{6});/.exec((await page(await create())).html)?.[1]
    expect(await buttonText()).toBe('#000000')

    const res = await fetch(`${file.sandbox.checkoutUrl}/v1/customizations`, {
      body: JSON.stringify({appleTouchIconUrl: 'https://cdn.example/t.png', colorScheme: '#0a3d1b', customTitle: 'Shop', iconUrl: 'https://cdn.example/i.ico', logoUrl: 'https://cdn.example/l.png'}),
      headers: {authorization: `Basic ${Buffer.from(`${file.sandbox.secretKey}:`).toString('base64')}`, 'content-type': 'application/json'},
      method: 'POST',
    })
    expect(res.status).toBe(200)
    expect(await buttonText()).toBe('#ffffff')
    const dark = await run(CustomizeSet, [...flags, '--color', '#0a3d1b'])
    expect(dark.stderr).not.toContain('contrast')
  })
})
