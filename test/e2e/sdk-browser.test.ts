/**
 * A merchant's web page pays through the sandbox with the official browser SDK (paymaya-js-sdk),
 * in headless Chromium: the page is served from its own loopback origin, loads the SDK's bundle,
 * and calls `PayMayaSDK.init(publicKey, true)` then `createCheckout(...)` with the SDK's own
 * example (amounts and quantity as JSON numbers). Chromium sends the preflight and the POST as it
 * would to the real service; the SDK has the service's address written in, so the test sends its
 * requests, unchanged but for the origin, to the sandbox (request interception). The buyer then
 * pays on the hosted page and lands on the merchant's success URL.
 */
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {createRequire} from 'node:module'
import {type ConsoleMessage, type Page} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {browserRequired, chromium, chromiumMissing, startChromium, type TestBrowser} from '../helpers/chromium.js'
import {listenOnLoopback} from '../helpers/loopback-servers.js'

/** Where the SDK sends its calls when `init` is told it is in a sandbox (written in its bundle). */
const SDK_API_ORIGIN = 'https://pg-sandbox.paymaya.com'
const START = '2026-11-21T02:00:00Z'

/** The SDK's browser bundle (UMD: a script tag defines `PayMayaSDK`), a devDependency. */
const sdkBundle = readFileSync(createRequire(import.meta.url).resolve('paymaya-js-sdk'))

/** The merchant's shop page: a "Buy" button that runs the SDK's README example, amounts as numbers. */
function shopPage(shopOrigin: string, publicKey: string, total: number): string {
  const order = {
    totalAmount: {value: total, currency: 'PHP', details: {discount: 0, serviceCharge: 0, shippingFee: 0, tax: 0, subtotal: total}},
    buyer: {firstName: 'John', lastName: 'Doe', contact: {phone: '+639181008888', email: 'merchant@merchantsite.com'}},
    items: [{name: 'Canvas Slip Ons', quantity: 1, code: 'CVG-096732', amount: {value: total}, totalAmount: {value: total}}],
    redirectUrl: {success: `${shopOrigin}/success`, failure: `${shopOrigin}/failure`, cancel: `${shopOrigin}/cancel`},
    requestReferenceNumber: `SDK-${total}`,
    metadata: {},
  }
  return `<!doctype html><title>Shop</title>
<script src="/paymaya-js-sdk.js"></script>
<button id="buy">Buy</button>
<script>
  document.getElementById('buy').addEventListener('click', () => {
    PayMayaSDK.init(${JSON.stringify(publicKey)}, true)
    PayMayaSDK.createCheckout(${JSON.stringify(order)})
  })
</script>`
}

interface Shop {
  origin: string
  close(): Promise<void>
}

async function startShop(): Promise<Shop> {
  let origin = ''
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname
    if (path === '/paymaya-js-sdk.js') {
      res.setHeader('content-type', 'text/javascript')
      return res.end(sdkBundle)
    }

    res.setHeader('content-type', 'text/html')
    // /buy/<total>, and /leaky/buy/<total>: a page that (wrongly) holds the secret key
    const buy = /^(\/leaky)?\/buy\/(\d+(?:\.\d+)?)$/.exec(path)
    const key = buy?.[1] ? SANDBOX_KEYS.secretKey : SANDBOX_KEYS.publicKey
    res.end(buy ? shopPage(origin, key, Number(buy[2])) : `<!doctype html><title>Shop</title><h1>shop page ${path}</h1>`)
  })
  const listening = await listenOnLoopback(server)
  origin = listening.origin
  return listening
}

let sandbox: RunningSandbox
let shop: Shop
let chrome: TestBrowser

async function checkout(id: string): Promise<any> {
  const res = await fetch(`${sandbox.origin}/checkout/v1/checkouts/${id}`, {headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey)}})
  return res.json()
}

/**
 * A page whose calls to the SDK's service address go to the sandbox instead (same method, path,
 * headers and body); loopback requests go as they are; anything else is refused.
 */
async function shopperPage(seen: string[]): Promise<Page> {
  const page = await chrome.browser.newPage()
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (url.origin === SDK_API_ORIGIN) {
      seen.push(`${request.method()} ${url.pathname}`)
      return request.continue({url: sandbox.origin + url.pathname + url.search})
    }

    return url.hostname === '127.0.0.1' ? request.continue() : request.abort()
  })
  return page
}

/**
 * Clicks "Buy" and waits until the SDK has sent the buyer on (`navigated`), or has given up: it
 * then logs what it caught (the service's error body, or the failed fetch) and the message it
 * ends with, which are returned.
 */
async function buy(page: Page): Promise<'navigated' | unknown[]> {
  const logged: unknown[] = []
  let gaveUp: () => void = () => {}
  const done = new Promise<unknown[]>((resolve) => (gaveUp = () => resolve(logged)))
  const onConsole = async (message: ConsoleMessage) => {
    if (message.type() !== 'error') return
    const [first] = message.args()
    // an Error is not JSON: its text is what matters
    logged.push(first ? await first.evaluate((value) => (value instanceof Error ? String(value) : value)) : message.text())
    if (message.text().startsWith('SDK: createCheckout')) gaveUp()
  }

  page.on('console', onConsole)
  try {
    return await Promise.race([page.waitForNavigation().then(() => 'navigated' as const), page.click('#buy').then(() => done)])
  } finally {
    page.off('console', onConsole)
  }
}

if (!chromium && !browserRequired) {
  process.stderr.write(`sdk-browser.test.ts: the browser tests are skipped: ${chromiumMissing}\n`)
  describe("a merchant's page with paymaya-js-sdk", () => {
    // eslint-disable-next-line mocha/no-skipped-tests -- the reason is the point: it shows in the report
    it.skip(`skipped: ${chromiumMissing}`, () => {})
  })
} else {
  describe("a merchant's page with paymaya-js-sdk, in Chromium", () => {
    beforeAll(async () => {
      sandbox = await createSandbox({port: 0, clock: START})
      shop = await startShop()
      chrome = await startChromium()
    })

    afterAll(async () => {
      await chrome?.close()
      await shop?.close()
      await sandbox?.close()
    })

    it('creates the checkout from the page, the buyer pays on the hosted page and lands on the success URL', async () => {
      const seen: string[] = []
      const page = await shopperPage(seen)
      try {
        await page.goto(`${shop.origin}/buy/100`)
        expect(await buy(page), 'the SDK could not create the checkout').toBe('navigated')
        expect(page.url()).toMatch(new RegExp(`^${sandbox.origin}/checkout/pay/chk_`))
        // Chromium asked first (the preflight), then sent the SDK's POST.
        expect(seen).toEqual(['OPTIONS /checkout/v1/checkouts', 'POST /checkout/v1/checkouts'])

        const id = new URL(page.url()).pathname.split('/').pop()!
        await page.type('#cardNumber', '5123 4567 8901 2346')
        await page.type('#expiry', '12/30')
        await page.type('#cvc', '123')
        await Promise.all([page.waitForNavigation(), page.click('button.pay')])
        expect(page.url()).toBe(`${shop.origin}/success`)
        expect(await page.$eval('h1', (el) => el.textContent)).toBe('shop page /success')

        const paid = await checkout(id)
        expect(paid).toMatchObject({status: 'COMPLETED', paymentStatus: 'PAYMENT_SUCCESS', requestReferenceNumber: 'SDK-100'})
        expect(paid.totalAmount).toMatchObject({value: '100.00', currency: 'PHP'})
        expect(paid.items[0]).toMatchObject({quantity: '1', amount: {value: '100.00'}})
      } finally {
        await page.close()
      }
    })

    it("a refused order is readable by the page: the SDK gets the sandbox's 400 naming the field (100.125 has three decimals)", async () => {
      const page = await shopperPage([])
      try {
        await page.goto(`${shop.origin}/buy/100.125`)
        const logged = await buy(page)
        expect(page.url()).toBe(`${shop.origin}/buy/100.125`)
        const refusal = (logged as any[]).find((entry) => typeof entry === 'object' && entry !== null)
        expect(refusal?.parameters).toContainEqual({field: 'totalAmount.value', description: 'at most two decimals are allowed, got 100.125'})
      } finally {
        await page.close()
      }
    })

    it('a page holding the secret key gets nothing back (the browser withholds the refusal) and makes no checkout; the same page with the public key does', async () => {
      const orders = async () => (await sandbox.ctx.state.checkout.checkouts.values()).filter((c) => c.requestReferenceNumber === 'SDK-200').length
      for (const [path, key] of [
        ['/leaky/buy/200', 'secret'],
        ['/buy/200', 'public'],
      ]) {
        const seen: string[] = []
        const page = await shopperPage(seen)
        try {
          await page.goto(shop.origin + path)
          const outcome = await buy(page)
          expect(seen, key).toContain('POST /checkout/v1/checkouts')
          if (key === 'secret') {
            expect(page.url()).toBe(shop.origin + path)
            expect(outcome).toContain('TypeError: Failed to fetch')
            expect(JSON.stringify(outcome)).not.toContain('K004')
            expect(await orders()).toBe(0)
          } else {
            expect(outcome).toBe('navigated')
            expect(await orders()).toBe(1)
          }
        } finally {
          await page.close()
        }
      }
    })
  })
}
