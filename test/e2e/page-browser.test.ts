/**
 * The hosted payment page driven by a real browser: headless Chromium through puppeteer-core,
 * with the page's JavaScript switched off (the page must work without it), against a sandbox
 * started in this process and a loopback "shop" that plays the merchant: its success, failure
 * and cancel pages, and its webhook receiver.
 *
 * Chromium: test/helpers/chromium.ts (skipped with the reason where it is missing, unless
 * OPSCTL_BROWSER_TESTS=required).
 */
/* global document, HTMLImageElement, HTMLInputElement */
import {createServer, type Server} from 'node:http'
import {type Page} from 'puppeteer-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {browserRequired, chromium, chromiumMissing, startChromium, type TestBrowser} from '../helpers/chromium.js'
import {listenOnLoopback} from '../helpers/loopback-servers.js'

// 10:00 in Manila on 21 Nov 2026: a card that expired in October is past, one of 12/30 is valid.
const START = '2026-11-21T02:00:00Z'
const GOOD_CARD = '5123 4567 8901 2346'
const DECLINED_CARD = '5204 7300 0000 2662'
const TITLE = 'Tea Shop'

/** The merchant: pages the buyer is sent to, and the webhook receiver. */
interface Shop {
  origin: string
  webhooks: any[]
  /** Resolves with the first webhook (past or future) that matches. */
  webhook(match: (body: any) => boolean): Promise<any>
  close(): Promise<void>
}

async function startShop(): Promise<Shop> {
  const webhooks: any[] = []
  let arrived = () => {}
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST') {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        webhooks.push(JSON.parse(body))
        res.end('ok')
        arrived()
      })
      return
    }

    res.setHeader('content-type', 'text/html')
    res.end(`<!doctype html><title>Shop</title><h1>shop page ${req.url}</h1>`)
  })
  const listening = await listenOnLoopback(server)
  return {
    ...listening,
    webhooks,
    async webhook(match) {
      for (;;) {
        const found = webhooks.find(match)
        if (found) return found
        await new Promise<void>((resolve) => (arrived = resolve))
      }
    },
  }
}

let sandbox: RunningSandbox
let shop: Shop
let chrome: TestBrowser
let page: Page

async function api(method: string, path: string, key: 'public' | 'secret', body?: unknown): Promise<any> {
  const res = await fetch(`${sandbox.origin}/checkout/v1${path}`, {
    method,
    headers: {
      authorization: basicAuth(key === 'public' ? SANDBOX_KEYS.publicKey : SANDBOX_KEYS.secretKey),
      ...(body === undefined ? {} : {'content-type': 'application/json'}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

/** A checkout of PHP 150.00 (two items); `redirects: false` leaves the buyer on the page. */
async function newCheckout(redirects = true): Promise<{id: string; url: string}> {
  const created = await api('POST', '/checkouts', 'public', {
    totalAmount: {value: '150.00', currency: 'PHP'},
    items: [
      {name: 'Tea', quantity: '2', amount: {value: '50.00'}, totalAmount: {value: '100.00'}},
      {name: 'Cake', quantity: '1', amount: {value: '50.00'}, totalAmount: {value: '50.00'}},
    ],
    requestReferenceNumber: `BROWSER-${Date.now()}`,
    ...(redirects ? {redirectUrl: {success: `${shop.origin}/ok`, failure: `${shop.origin}/failed`, cancel: `${shop.origin}/cart`}} : {}),
  })
  return {id: created.checkoutId, url: created.redirectUrl}
}

const checkout = (id: string) => api('GET', `/checkouts/${id}`, 'secret')

async function fillCard(number: string, expiry: string, cvc: string): Promise<void> {
  await page.type('#cardNumber', number)
  await page.type('#expiry', expiry)
  await page.type('#cvc', cvc)
}

/** Clicks a submit button and waits for the page (or the merchant's page) it leads to. */
async function submit(button: 'cancel' | 'pay'): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(`button.${button}`)])
}

const text = (selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').trim())
const value = (selector: string) => page.$eval(selector, (el) => (el as HTMLInputElement).value)

if (!chromium && !browserRequired) {
  process.stderr.write(`page-browser.test.ts: the browser tests are skipped: ${chromiumMissing}\n`)
  describe('hosted page in a real browser', () => {
    // eslint-disable-next-line mocha/no-skipped-tests -- the reason is the point: it shows in the report
    it.skip(`skipped: ${chromiumMissing}`, () => {})
  })
} else {
  browserTests()
}

function browserTests(): void {
  describe('hosted page in a real browser (Chromium, no JavaScript)', () => {
    beforeAll(async () => {
      sandbox = await createSandbox({port: 0, clock: START})
      shop = await startShop()
      await api('POST', '/webhooks', 'secret', {name: 'CHECKOUT_SUCCESS', callbackUrl: `${shop.origin}/hooks/paid`})
      await api('POST', '/customizations', 'secret', {
        logoUrl: `${sandbox.origin}/no-such-logo.png`,
        iconUrl: `${sandbox.origin}/no-such-icon.ico`,
        appleTouchIconUrl: `${sandbox.origin}/no-such-touch.png`,
        customTitle: TITLE,
        colorScheme: '#0a7d3b',
      })
      chrome = await startChromium()
    })

    afterAll(async () => {
      await chrome?.close()
      await shop?.close()
      await sandbox?.close()
    })

    beforeEach(async () => {
      page = await chrome.browser.newPage()
      await page.setJavaScriptEnabled(false)
    })

    afterEach(async () => {
      await page?.close()
    })

    it('pays with a success card: lands on the success URL, the checkout is paid, the webhook is delivered', async () => {
      const {id, url} = await newCheckout()
      const response = await page.goto(url)
      expect(response?.status()).toBe(200)
      expect(await text('.sandbox strong')).toBe('Sandbox: no real money.')
      await fillCard(GOOD_CARD, '12/30', '123')
      await submit('pay')
      expect(page.url()).toBe(`${shop.origin}/ok`)
      expect(await checkout(id)).toMatchObject({status: 'COMPLETED', paymentStatus: 'PAYMENT_SUCCESS', paymentDetails: {last4: '2346'}})
      const hook = await shop.webhook((body) => body.id === id)
      expect(hook).toMatchObject({id, paymentStatus: 'PAYMENT_SUCCESS', totalAmount: {value: '150.00', currency: 'PHP'}})
      expect(JSON.stringify(shop.webhooks)).not.toContain('5123456789012346')
    })

    it('a declined card lands on the failure URL; without one the page says the issuer declined it', async () => {
      const {id, url} = await newCheckout()
      await page.goto(url)
      await fillCard(DECLINED_CARD, '12/30', '123')
      await submit('pay')
      expect(page.url()).toBe(`${shop.origin}/failed`)
      expect(await checkout(id)).toMatchObject({status: 'COMPLETED', paymentStatus: 'PAYMENT_FAILED'})

      const stay = await newCheckout(false)
      await page.goto(stay.url)
      await fillCard(DECLINED_CARD, '12/30', '123')
      await submit('pay')
      expect(page.url()).toBe(stay.url)
      expect(await text('.message')).toContain("The card's issuer declined this payment")
    })

    it('an expired card is refused on the form with its reason, keeping what was typed but the CVC; a valid date then pays', async () => {
      const {id, url} = await newCheckout()
      await page.goto(url)
      await fillCard(GOOD_CARD, '10/26', '123')
      await submit('pay')
      expect(page.url()).toBe(url)
      expect(await text('[role=alert]')).toBe('This card expired at the end of 10/26. Use a card that is still valid.')
      expect([await value('#cardNumber'), await value('#expiry'), await value('#cvc')]).toEqual([GOOD_CARD, '10/26', ''])
      expect(await checkout(id)).toMatchObject({status: 'CREATED', paymentStatus: 'PENDING_PAYMENT'})

      await page.$eval('#expiry', (el) => ((el as HTMLInputElement).value = ''))
      await page.type('#expiry', '12/30')
      await page.type('#cvc', '123')
      await submit('pay')
      expect(page.url()).toBe(`${shop.origin}/ok`)
    })

    it('a number that fails the Luhn check is refused as not valid, and the card number field is marked and focused', async () => {
      const {id, url} = await newCheckout()
      await page.goto(url)
      await fillCard('5123 4567 8901 2345', '12/30', '123')
      await submit('pay')
      expect(await text('[role=alert]')).toBe('This card number is not valid: check it for a mistyped digit.')
      expect(await page.$eval('#cardNumber', (el) => el.getAttribute('aria-invalid'))).toBe('true')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('cardNumber')
      expect(await value('#cardNumber')).toBe('5123 4567 8901 2345')
      expect((await checkout(id)).paymentStatus).toBe('PENDING_PAYMENT')
    })

    it('cancel, with the fields empty, lands on the cancel URL as a dropout', async () => {
      const {id, url} = await newCheckout()
      await page.goto(url)
      await submit('cancel')
      expect(page.url()).toBe(`${shop.origin}/cart`)
      expect(await checkout(id)).toMatchObject({status: 'COMPLETED', paymentStatus: 'PAYMENT_CANCELLED'})
    })

    it('a second visit after payment, and an expired checkout, say so in words, with no form and no status codes', async () => {
      const paid = await newCheckout()
      await page.goto(paid.url)
      await fillCard(GOOD_CARD, '12/30', '123')
      await submit('pay')
      const again = await page.goto(paid.url)
      expect(again?.status()).toBe(409)
      const paidText = await text('body')
      expect(paidText).toContain('This checkout has already been paid')
      expect(paidText).toContain('PHP 150.00 paid with Mastercard ending in 2346.')
      expect(await page.$('form')).toBeNull()

      const late = await newCheckout()
      sandbox.ctx.clock.advance(61 * 60_000)
      expect((await page.goto(late.url))?.status()).toBe(409)
      const lateText = await text('body')
      expect(lateText).toContain('This checkout has expired')
      expect(await page.$('form')).toBeNull()
      for (const shown of [paidText, lateText]) expect(shown).not.toMatch(/\b(COMPLETED|EXPIRED|[A-Z]+_[A-Z_]+)\b/)
    })

    it('the totals line up, the test cards open from the hint, and a logo that fails to load shows nothing', async () => {
      const {url} = await newCheckout()
      const response = await page.goto(url)
      // The right edge of each amount's text: items and total end in the same column.
      const edges = await page.$$eval('.amount', (cells) =>
        cells.map((cell) => {
          const range = document.createRange()
          range.selectNodeContents(cell)
          return Math.round(range.getBoundingClientRect().right)
        }),
      )
      expect(edges).toHaveLength(3)
      expect(new Set(edges).size).toBe(1)

      const hintShown = () => page.$eval('.sandbox ul', (el) => el.checkVisibility())
      expect(await hintShown()).toBe(false)
      await page.click('.sandbox summary')
      expect(await hintShown()).toBe(true)
      const hint = await text('.sandbox ul')
      expect(hint).toContain('5123 4567 8901 2346')
      expect(hint).toContain('5204 7300 0000 2662')

      const logo = await page.$eval('img.logo', (img) => ({
        failed: (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 0,
        height: img.getBoundingClientRect().height,
      }))
      expect(logo).toEqual({failed: true, height: 0})
      expect(await text('header')).toBe(TITLE)
      const left = (selector: string) => page.$eval(selector, (el) => Math.round(el.getBoundingClientRect().left))
      expect(await left('header h1')).toBe(await left('main table'))

      const headers = response!.headers()
      expect(headers['cache-control']).toBe('no-store')
      expect(headers['x-frame-options']).toBe('DENY')
      expect(headers['content-security-policy']).toContain("default-src 'none'")
    })
  })
}
