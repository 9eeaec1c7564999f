import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import ProfileAdd from '../../src/commands/profile/add.js'
import {basicAuth} from '../../src/http/services.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {BASE, checkoutRecord, dateHeader, JSON_HEADERS, SECRETS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

const created = {checkoutId: 'chk_1', redirectUrl: 'http://127.0.0.1:4010/checkout/pay/chk_1'}

describe('checkout create', () => {
  it('builds the request from flags in cents, with the public key, and prints checkoutId and redirectUrl', async () => {
    h.pool.intercept({path: `${BASE}/checkouts`, method: 'POST'}).reply(200, created, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutCreate, [
      '--amount',
      '150.10',
      '--item',
      'Tea:2:50.05:TEA-01',
      '--item',
      'Cake:1:50',
      '--ref',
      'ORDER-7',
      '--success-url',
      'https://shop.example/ok',
      '--failure-url',
      'https://shop.example/failed',
      '--cancel-url',
      'https://shop.example/cart',
      '--buyer-first-name',
      'Ana',
      '--buyer-email',
      'ana@example.com',
      '--metadata',
      'channel=cli',
    ])
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    const [call] = h.calls()
    expect(call.headers.authorization).toBe(basicAuth(SANDBOX_KEYS.publicKey))
    const {version} = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'))
    expect(call.headers['user-agent']).toBe(`opsctl/${version} node/${process.versions.node}`)
    expect(call.body).toEqual({
      totalAmount: {value: '150.10', currency: 'PHP'},
      items: [
        {name: 'Tea', code: 'TEA-01', quantity: '2', amount: {value: '50.05'}, totalAmount: {value: '100.10'}},
        {name: 'Cake', quantity: '1', amount: {value: '50.00'}, totalAmount: {value: '50.00'}},
      ],
      requestReferenceNumber: 'ORDER-7',
      redirectUrl: {success: 'https://shop.example/ok', failure: 'https://shop.example/failed', cancel: 'https://shop.example/cart'},
      buyer: {firstName: 'Ana', contact: {email: 'ana@example.com'}},
      metadata: {channel: 'cli'},
    })
    expect(out.stdout).toContain('chk_1')
    expect(out.stdout).toContain('http://127.0.0.1:4010/checkout/pay/chk_1')
  })

  it('derives the amount from the items, generates a reference, and answers JSON under --json', async () => {
    h.pool.intercept({path: `${BASE}/checkouts`, method: 'POST'}).reply(200, created, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutCreate, ['--item', 'Tea:3:0.10', '--item', 'Milk:1:0.20', '--currency', 'usd', '--json'])
    expect(out.code).toBe(0)
    const body = h.calls()[0].body
    expect(body.totalAmount).toEqual({value: '0.50', currency: 'USD'})
    expect(body.requestReferenceNumber).toMatch(/^opsctl-\d{8}-[\da-f]{8}$/)
    const json = JSON.parse(out.stdout)
    expect(json).toMatchObject({checkoutId: 'chk_1', redirectUrl: created.redirectUrl, amount: '0.50', currency: 'USD'})
    expect(json.requestReferenceNumber).toBe(body.requestReferenceNumber)
  })

  it('with --amount only, sends one item for the whole amount', async () => {
    h.pool.intercept({path: `${BASE}/checkouts`, method: 'POST'}).reply(200, created, {headers: JSON_HEADERS})
    await h.run(CheckoutCreate, ['--amount', '99999999.99', '--ref', 'BIG'])
    expect(h.calls()[0].body.items).toEqual([
      {name: 'Order BIG', quantity: '1', amount: {value: '99999999.99'}, totalAmount: {value: '99999999.99'}},
    ])
  })

  it('refuses items that do not add up to --amount (exit 2, nothing sent)', async () => {
    const out = await h.run(CheckoutCreate, ['--amount', '100.00', '--item', 'Tea:2:50.01'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('The items add up to 100.02 PHP but --amount is 100.00 PHP')
    expect(h.calls()).toEqual([])
  })

  it('refuses a three-decimal amount before sending (exit 2)', async () => {
    const out = await h.run(CheckoutCreate, ['--amount', '10.005'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('--amount: invalid amount "10.005": at most two decimals are allowed')
    expect(out.stderr).not.toMatch(/\n\s+at /)
    expect(h.calls()).toEqual([])
  })

  it('refuses a negative or zero amount and a malformed item (exit 2)', async () => {
    expect((await h.run(CheckoutCreate, ['--amount', '0'])).code).toBe(2)
    expect((await h.run(CheckoutCreate, ['--amount=-5.00'])).code).toBe(2)
    const bad = await h.run(CheckoutCreate, ['--item', 'Tea:two:5.00'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('expected name:quantity:unit-price[:code]')
    expect(h.calls()).toEqual([])
  })

  it('--data @file: validated by the schema before sending (three decimals, exit 2), reference generated', async () => {
    const dir = process.env.OPSCTL_CONFIG_DIR!
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({totalAmount: {value: '1.005', currency: 'PHP'}, items: [{name: 'x'}]}))
    const out = await h.run(CheckoutCreate, ['--data', `@${bad}`])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('totalAmount.value')
    expect(h.calls()).toEqual([])

    const good = join(dir, 'good.json')
    writeFileSync(
      good,
      JSON.stringify({
        totalAmount: {value: '20.00', currency: 'PHP'},
        items: [{name: 'x', quantity: '2', amount: {value: '10.00'}}],
        extra: 1,
      }),
    )
    h.pool.intercept({path: `${BASE}/checkouts`, method: 'POST'}).reply(200, created, {headers: JSON_HEADERS})
    expect((await h.run(CheckoutCreate, ['--data', `@${good}`])).code).toBe(0)
    const body = h.calls()[0].body
    expect(body.extra).toBe(1)
    expect(body.requestReferenceNumber).toMatch(/^opsctl-/)
  })

  it('--data with items that do not add up is refused (exit 2)', async () => {
    const file = join(process.env.OPSCTL_CONFIG_DIR!, 'c.json')
    writeFileSync(
      file,
      JSON.stringify({totalAmount: {value: '25.00', currency: 'PHP'}, items: [{name: 'x', quantity: '2', amount: {value: '10.00'}}]}),
    )
    const out = await h.run(CheckoutCreate, ['--data', `@${file}`])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('add up to 20.00')
    expect(h.calls()).toEqual([])
  })
})

/**
 * --open runs the real opener (xdg-open, as the `open` package ships it) with a fake browser in
 * $BROWSER and no desktop session, so the opener's own exit code decides what is said.
 */
describe.runIf(process.platform === 'linux')('checkout create --open', () => {
  function fakeBrowser(exitCode: number): {path: string; opened: string} {
    const dir = process.env.OPSCTL_CONFIG_DIR!
    const opened = join(dir, 'opened.txt')
    const path = join(dir, `browser-${exitCode}.sh`)
    writeFileSync(path, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\nexit ${exitCode}\n`, {mode: 0o755})
    return {path, opened}
  }

  function withoutDesktop(browser: string): void {
    for (const k of [
      'DISPLAY',
      'WAYLAND_DISPLAY',
      'XDG_CURRENT_DESKTOP',
      'DESKTOP_SESSION',
      'KDE_FULL_SESSION',
      'GNOME_DESKTOP_SESSION_ID',
    ]) {
      delete process.env[k]
    }

    process.env.BROWSER = browser
  }

  it('says it is opening the page only once the opener succeeded', async () => {
    const browser = fakeBrowser(0)
    withoutDesktop(browser.path)
    h.pool.intercept({path: `${BASE}/checkouts`, method: 'POST'}).reply(200, created, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutCreate, ['--amount', '10.00', '--open'])
    expect(out.code).toBe(0)
    expect(out.stderr).toBe(`Opening ${created.redirectUrl} in your browser\n`)
    expect(readFileSync(browser.opened, 'utf8')).toBe(created.redirectUrl)
  })

  it('when no browser opens, prints the address and the reason, and the checkout still counts as created (exit 0)', async () => {
    const browser = fakeBrowser(1)
    withoutDesktop(browser.path)
    h.pool
      .intercept({path: `${BASE}/checkouts`, method: 'POST'})
      .reply(200, created, {headers: JSON_HEADERS})
      .times(2)
    const out = await h.run(CheckoutCreate, ['--amount', '10.00', '--open'])
    expect(out.code).toBe(0)
    expect(out.stderr).toBe(
      `Could not open a browser (xdg-open exited 3: no browser was found). Open the payment page yourself: ${created.redirectUrl}\n`,
    )
    expect(out.stderr).not.toContain('Opening')
    expect(readFileSync(browser.opened, 'utf8')).toBe(created.redirectUrl)

    const json = await h.run(CheckoutCreate, ['--amount', '10.00', '--open', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({
      redirectUrl: created.redirectUrl,
      opened: false,
      openError: 'xdg-open exited 3: no browser was found',
    })
  })
})

describe('checkout get', () => {
  it('shows the main fields with the secret key', async () => {
    h.pool.intercept({path: `${BASE}/checkouts/chk_1`, method: 'GET'}).reply(200, checkoutRecord(), {headers: JSON_HEADERS})
    const out = await h.run(CheckoutGet, ['chk_1', '--verbose'])
    expect(out.code).toBe(0)
    expect(h.calls()[0].headers.authorization).toBe(basicAuth(SANDBOX_KEYS.secretKey))
    expect(out.stdout).toMatch(/paymentStatus\tPAYMENT_SUCCESS/)
    expect(out.stdout).toMatch(/totalAmount\.value\t1500\.00/)
    for (const secret of SECRETS) expect(out.stdout + out.stderr).not.toContain(secret)
  })

  it('exits 4 on PY0009, quoting the request id', async () => {
    h.pool
      .intercept({path: `${BASE}/checkouts/nope`, method: 'GET'})
      .reply(404, {code: 'PY0009', message: 'Checkout nope not found'}, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutGet, ['nope'])
    expect(out.code).toBe(4)
    expect(out.stderr).toContain('Checkout nope not found')
    expect(out.stderr).toContain('req-123')
  })
})

describe('checkout void', () => {
  const getPaid = (now: string, record = checkoutRecord()) =>
    h.pool.intercept({path: `${BASE}/checkouts/chk_1`, method: 'GET'}).reply(200, record, {headers: dateHeader(now)})

  it('reads the checkout, then sends DELETE with the reason once, on the transaction day', async () => {
    getPaid('2026-11-21T15:59:59Z')
    h.pool
      .intercept({path: `${BASE}/checkouts/chk_1`, method: 'DELETE'})
      .reply(200, {checkoutId: 'chk_1', voidStatus: 'SUCCESS'}, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'duplicate order', '--yes', '--json'])
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toMatchObject({checkoutId: 'chk_1', voidStatus: 'SUCCESS', amount: '1500.00', currency: 'PHP'})
    expect(h.calls().map((c) => c.method)).toEqual(['GET', 'DELETE'])
    expect(h.calls()[1].body).toEqual({reason: 'duplicate order'})
  })

  it('refuses after 23:59:59 UTC+8 of the transaction date (exit 5, says refund), without sending the DELETE', async () => {
    getPaid('2026-11-21T16:00:00Z')
    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'late', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('void window closed at 2026-11-21 23:59:59 +08:00; use `opsctl refund create`')
    expect(out.stderr).toContain('opsctl refund create chk_1')
    expect(h.calls().map((c) => c.method)).toEqual(['GET'])
  })

  it('refuses a payment that did not succeed (exit 5), nothing sent', async () => {
    getPaid('2026-11-21T05:00:00Z', checkoutRecord({paymentStatus: 'PAYMENT_FAILED', paymentDetails: undefined}))
    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'x', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('payment status is PAYMENT_FAILED')
    expect(h.calls().map((c) => c.method)).toEqual(['GET'])
  })

  it('needs --yes without a terminal (exit 2), and sends nothing, not even the read', async () => {
    getPaid('2026-11-21T05:00:00Z')
    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'x'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('pass --yes')
    expect(h.calls()).toEqual([])
  })

  it("turns the service's own PY0073 into exit 5 with the refund command to try", async () => {
    getPaid('2026-11-21T15:59:59Z')
    h.pool
      .intercept({path: `${BASE}/checkouts/chk_1`, method: 'DELETE'})
      .reply(400, {code: 'PY0073', message: 'void window closed'}, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'x', '--yes'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('Try this: opsctl refund create chk_1')
    expect(h.calls().filter((c) => c.method === 'DELETE')).toHaveLength(1)
  })

  it('is not retried on a 503', async () => {
    getPaid('2026-11-21T05:00:00Z')
    h.pool.intercept({path: `${BASE}/checkouts/chk_1`, method: 'DELETE'}).reply(503, {message: 'busy'}, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'x', '--yes'])
    expect(out.code).toBe(6)
    expect(h.calls().filter((c) => c.method === 'DELETE')).toHaveLength(1)
  })

  it('--dry-run prints the DELETE as curl and sends nothing', async () => {
    const out = await h.run(CheckoutVoid, ['chk_1', '--reason', 'x', '--dry-run'])
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('-X DELETE')
    expect(out.stdout).toContain('/checkout/v1/checkouts/chk_1')
    for (const secret of SECRETS) expect(out.stdout).not.toContain(secret)
    expect(h.calls()).toEqual([])
  })
})

describe('checkout pay', () => {
  const page = `<html><body><form method="post" action="/checkout/pay/chk_1"><input name="cardNumber"></form></body></html>`

  it('acts as the buyer: GET the page, POST the form, report the outcome with only the last four digits', async () => {
    h.pool.intercept({path: '/checkout/pay/chk_1', method: 'GET'}).reply(200, page, {headers: {'content-type': 'text/html'}})
    h.pool.intercept({path: '/checkout/pay/chk_1', method: 'POST'}).reply(303, '', {headers: {location: 'https://shop.example/ok'}})
    h.pool.intercept({path: `${BASE}/checkouts/chk_1`, method: 'GET'}).reply(200, checkoutRecord(), {headers: JSON_HEADERS})
    const out = await h.run(CheckoutPay, ['chk_1', '--card', '4123 4501 3100 1381', '--expiry', '11/29', '--cvc', '321', '--json'])
    expect(out.code).toBe(0)
    const post = h.calls()[1]
    expect(post.method).toBe('POST')
    expect(post.headers['content-type']).toBe('application/x-www-form-urlencoded')
    const form = new URLSearchParams(post.body)
    expect(Object.fromEntries(form)).toEqual({action: 'pay', cardNumber: '4123450131001381', expiry: '11/29', cvc: '321'})
    expect(post.headers.authorization).toBeUndefined()
    expect(JSON.parse(out.stdout)).toEqual({
      checkoutId: 'chk_1',
      action: 'pay',
      card: {scheme: 'VISA', last4: '1381'},
      sent: {method: 'POST', url: 'http://127.0.0.1:4010/checkout/pay/chk_1', card: '************1381'},
      redirectedTo: 'https://shop.example/ok',
      status: 'COMPLETED',
      paymentStatus: 'PAYMENT_SUCCESS',
    })
    expect(out.stdout + out.stderr).not.toContain('4123450131001381')
  })

  it('says what it posted, where, with the card masked, in the table too', async () => {
    h.pool.intercept({path: '/checkout/pay/chk_1', method: 'GET'}).reply(200, page)
    h.pool.intercept({path: '/checkout/pay/chk_1', method: 'POST'}).reply(303, '', {headers: {location: 'https://shop.example/ok'}})
    h.pool.intercept({path: `${BASE}/checkouts/chk_1`, method: 'GET'}).reply(200, checkoutRecord(), {headers: JSON_HEADERS})
    const out = await h.run(CheckoutPay, ['chk_1', '--output', 'json'])
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toMatchObject({sent: {method: 'POST', url: 'http://127.0.0.1:4010/checkout/pay/chk_1', card: '************2346'}})
    expect(out.stdout).not.toContain('5123456789012346')
  })

  const otherOrigins: [string, string][] = [
    ['another host', 'https://collector.example/steal'],
    ['another port on loopback', 'http://127.0.0.1:9999/checkout/pay/chk_1'],
    ['a protocol-relative address', '//collector.example/pay'],
    // eslint-disable-next-line no-script-url -- the hostile form action the command must refuse
    ['a javascript: action', 'javascript:alert(1)'],
  ]
  for (const [what, action] of otherOrigins) {
    it(`refuses a form that posts to ${what} (exit 5): the card goes nowhere, only the page was read`, async () => {
      const foreign = `<html><body><form method="post" action="${action}"><input name="cardNumber"></form></body></html>`
      h.pool.intercept({path: '/checkout/pay/chk_1', method: 'GET'}).reply(200, foreign, {headers: {'content-type': 'text/html'}})
      const out = await h.run(CheckoutPay, ['chk_1'])
      expect(out.code).toBe(5)
      expect(out.stderr).toContain('not to the sandbox (http://127.0.0.1:4010); refusing to send card data there. Nothing was posted')
      expect(h.calls().map((c) => `${c.method} ${c.path}`)).toEqual(['GET /checkout/pay/chk_1'])
      expect(out.stdout + out.stderr).not.toContain('5123456789012346')
    })
  }

  it("refuses ids that are not one path segment ('', '.', '..'): exit 2, nothing sent", async () => {
    for (const id of ['', '.', '..', ' ']) {
      const out = await h.run(CheckoutPay, [id])
      expect(out.code, JSON.stringify(id)).toBe(2)
      expect(out.stderr).toMatch(/^Error: Invalid checkout id "[ .]*": it /)
    }

    expect(h.calls()).toEqual([])
  })

  it('--cancel posts the cancel action without any card data', async () => {
    h.pool.intercept({path: '/checkout/pay/chk_1', method: 'GET'}).reply(200, page)
    h.pool.intercept({path: '/checkout/pay/chk_1', method: 'POST'}).reply(303, '', {headers: {location: 'https://shop.example/cart'}})
    h.pool
      .intercept({path: `${BASE}/checkouts/chk_1`, method: 'GET'})
      .reply(200, checkoutRecord({paymentStatus: 'PAYMENT_CANCELLED'}), {headers: JSON_HEADERS})
    const out = await h.run(CheckoutPay, ['chk_1', '--cancel'])
    expect(out.code).toBe(0)
    expect(h.calls()[1].body).toBe('action=cancel')
    expect(out.stdout).toContain('PAYMENT_CANCELLED')
  })

  it('a page that cannot be paid any more is a refusal (exit 5)', async () => {
    h.pool
      .intercept({path: '/checkout/pay/chk_1', method: 'GET'})
      .reply(409, '<p class="message">This checkout has expired.</p>', {headers: {'content-type': 'text/html'}})
    const out = await h.run(CheckoutPay, ['chk_1'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('This checkout has expired.')
  })

  it('--dry-run checks the card, prints the first request (the page) as curl, and sends nothing', async () => {
    const out = await h.run(CheckoutPay, ['chk_1', '--card', '4123 4501 3100 1381', '--dry-run'])
    expect(out.code).toBe(0)
    expect(out.stdout).toContain(`curl -sS -X GET 'http://127.0.0.1:4010/checkout/pay/chk_1'`)
    expect(out.stdout).toContain(`-H 'accept: text/html'`)
    expect(out.stdout + out.stderr).not.toContain('4123450131001381')
    expect((await h.run(CheckoutPay, ['chk_1', '--card', '12ab', '--dry-run'])).code).toBe(2)
    expect(h.calls()).toEqual([])
  })

  it('refuses a malformed card before sending (exit 2)', async () => {
    const out = await h.run(CheckoutPay, ['chk_1', '--card', '12ab'])
    expect(out.code).toBe(2)
    expect(h.calls()).toEqual([])
  })

  it('on a production profile says it is for the sandbox and exits 2, nothing sent', async () => {
    const add = await h.run(ProfileAdd, [
      'prod',
      '--env',
      'production',
      '--health-url',
      'https://health.example.com',
      '--checkout-url',
      'https://pay.example.com',
      '--public-key',
      'pk-live-1',
    ])
    expect(add.code).toBe(0)
    const out = await h.run(CheckoutPay, ['chk_1', '--profile', 'prod'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('profile prod is production')
    expect(h.calls()).toEqual([])
  })
})
