/**
 * The sandbox's checkout module as plain functions over a fake context (no server): every
 * operation with its state and rules, the hosted payment page and its events.
 */
import {beforeEach, describe, expect, it} from 'vitest'

import type {Operation} from '../../src/http/operation.js'
import type {SandboxContext, SandboxEvent, SandboxReply} from '../../src/sandbox/types.js'

import {checkoutModule} from '../../src/sandbox/checkout/index.js'
import {showPaymentPage, submitPaymentForm} from '../../src/sandbox/checkout/page.js'
import {CheckoutStore} from '../../src/sandbox/checkout/state.js'
import {openStore} from '../../src/sandbox/core/sqlite-store.js'
import {SandboxError} from '../../src/sandbox/types.js'
import {checkoutService} from '../../src/services/checkout/operations.js'
import {answering} from '../fixtures/answering.js'

const HOUR = 3_600_000
// 10:00 in Manila (UTC+8) on 21 Nov 2026.
const START = '2026-11-21T02:00:00.000Z'

interface Fake {
  ctx: SandboxContext
  events: SandboxEvent[]
  state: CheckoutStore
}

function fakeContext(): Fake {
  let now = Date.parse(START)
  let n = 0
  const fake = {events: [] as SandboxEvent[]} as Fake
  // the module's real repositories, on an in-memory database
  const checkout = new CheckoutStore(openStore().store.forTenant('default'))
  fake.state = checkout
  fake.ctx = {
    state: {health: {} as never, checkout},
    clock: {
      now: () => new Date(now),
      set: (iso: string) => (now = Date.parse(iso)),
      advance: (ms: number) => (now += ms),
    },
    sessions: {create: async () => 'sid', lookup: async () => undefined, cookieHeader: () => ({})},
    origin: () => 'http://127.0.0.1:4999',
    id: (prefix = 'id') => `${prefix}_${++n}`,
    hex: (length: number) => 'a'.repeat(length),
    apiKeyKind: () => undefined,
    emit: async (event: SandboxEvent) => {
      fake.events.push(event)
    },
    commitNow: async (change: () => Promise<void>) => change(),
    schedule: async () => {},
    unschedule: async () => {},
    callbackRefusal: () => undefined,
  }
  return fake
}

let fake: Fake

const handlers = answering(checkoutModule)

/** Calls a handler the way the core does: the body validated by the operation's own schema first. */
async function call(
  operationId: keyof typeof checkoutService.operations,
  input: {params?: Record<string, string>; body?: unknown} = {},
): Promise<SandboxReply> {
  const op: Operation = checkoutService.operations[operationId]
  const body = op.body ? op.body.parse(input.body ?? {}) : undefined
  return handlers[operationId]({params: input.params ?? {}, query: {}, body, headers: {}, key: 'secret'}, fake.ctx)
}

async function refusal(operationId: keyof typeof checkoutService.operations, input: {params?: Record<string, string>; body?: unknown} = {}): Promise<SandboxError> {
  try {
    await call(operationId, input)
  } catch (error) {
    if (error instanceof SandboxError) return error
    throw error
  }

  throw new Error(`${operationId} was expected to be refused`)
}

const REQUEST = {
  totalAmount: {value: '150.00', currency: 'PHP'},
  items: [{name: 'Tea', quantity: '2', amount: {value: '75.00'}, totalAmount: {value: '150.00'}}],
  requestReferenceNumber: 'ORDER-1',
  redirectUrl: {success: 'https://shop.example/ok', failure: 'https://shop.example/failed', cancel: 'https://shop.example/cart'},
  metadata: {channel: 'web'},
}

async function createCheckout(request: unknown = REQUEST): Promise<string> {
  const res = await call('initiateCheckout', {body: request})
  return (res.body as {checkoutId: string}).checkoutId
}

async function record(checkoutId: string): Promise<Record<string, any>> {
  return (await call('getCheckout', {params: {checkoutId}})).body as Record<string, any>
}

async function pay(checkoutId: string, cardNumber = '5123456789012346', extra: Record<string, string> = {}) {
  return submitPaymentForm(fake.ctx, checkoutId, {action: 'pay', cardNumber, expiry: '12/30', cvc: '123', ...extra})
}

beforeEach(() => {
  fake = fakeContext()
})

describe('checkouts', () => {
  it('creates a pending checkout with a one-hour expiry and a hosted page address', async () => {
    const res = await call('initiateCheckout', {body: REQUEST})
    const {checkoutId, redirectUrl} = res.body as {checkoutId: string; redirectUrl: string}
    expect(redirectUrl).toBe(`http://127.0.0.1:4999/checkout/pay/${checkoutId}`)
    const r = await record(checkoutId)
    expect(r).toMatchObject({
      id: checkoutId,
      status: 'CREATED',
      paymentStatus: 'PENDING_PAYMENT',
      requestReferenceNumber: 'ORDER-1',
      metadata: {channel: 'web'},
      createdAt: START,
      expiredAt: '2026-11-21T03:00:00.000Z',
      refundedAmount: '0.00',
    })
  })

  it('answers PY0009 (404) for an unknown checkout', async () => {
    const e = await refusal('getCheckout', {params: {checkoutId: 'nope'}})
    expect([e.status, e.code]).toEqual([404, 'PY0009'])
  })

  it('expires an unpaid checkout after an hour, lazily on read, as one dropout', async () => {
    const id = await createCheckout()
    fake.ctx.clock.advance(HOUR - 1)
    expect((await record(id)).status).toBe('CREATED')
    fake.ctx.clock.advance(1)
    expect(await record(id)).toMatchObject({status: 'EXPIRED', paymentStatus: 'PAYMENT_EXPIRED', updatedAt: '2026-11-21T03:00:00.000Z'})
    await record(id)
    expect(fake.events.map((e) => [e.type, e.checkoutId])).toEqual([['CHECKOUT_DROPOUT', id]])
    expect((await showPaymentPage(fake.ctx, id)).status).toBe(409)
    expect((await pay(id)).status).toBe(409)
  })
})

describe('hosted payment page', () => {
  it('shows the customization: title, logo, icons and button colour, escaped', async () => {
    await call('setCustomization', {
      body: {
        logoUrl: 'https://cdn.example/logo.png',
        iconUrl: 'https://cdn.example/favicon.ico',
        appleTouchIconUrl: 'https://cdn.example/touch.png',
        customTitle: 'Tea <Shop> & Co',
        colorScheme: '#0a7d3b',
      },
    })
    const id = await createCheckout()
    const page = await showPaymentPage(fake.ctx, id)
    expect(page.status).toBe(200)
    expect(page.html).toContain('<title>Tea &lt;Shop&gt; &amp; Co</title>')
    expect(page.html).toContain('src="https://cdn.example/logo.png"')
    expect(page.html).toContain('<link rel="icon" href="https://cdn.example/favicon.ico">')
    expect(page.html).toContain('<link rel="apple-touch-icon" href="https://cdn.example/touch.png">')
    expect(page.html).toContain('button.pay{background:#0a7d3b')
    expect(page.html).toContain(`action="/checkout/pay/${id}"`)
    expect(page.html).toContain('PHP 150.00')
    expect(page.html).not.toContain('<Shop>')
  })

  it('answers 404 for an unknown checkout', async () => {
    expect((await showPaymentPage(fake.ctx, 'nope')).status).toBe(404)
  })

  it('a succeeding Mastercard pays, redirects to success and raises CHECKOUT_SUCCESS; only scheme and last 4 are kept', async () => {
    const id = await createCheckout()
    fake.ctx.clock.advance(5 * 60_000)
    expect(await pay(id)).toEqual({status: 303, location: 'https://shop.example/ok'})
    const r = await record(id)
    expect(r).toMatchObject({
      status: 'COMPLETED',
      paymentStatus: 'PAYMENT_SUCCESS',
      paymentType: 'CREDIT_CARD',
      paymentScheme: 'MASTERCARD',
      paymentDetails: {scheme: 'MASTERCARD', last4: '2346', paymentAt: '2026-11-21T02:05:00.000Z'},
    })
    expect(r.receiptNumber).toBeTruthy()
    expect(fake.events).toHaveLength(1)
    expect(fake.events[0]).toMatchObject({type: 'CHECKOUT_SUCCESS', checkoutId: id, payload: {id, paymentStatus: 'PAYMENT_SUCCESS'}})
    const everything = JSON.stringify([await fake.state.dump(), fake.events])
    expect(everything).not.toContain('5123456789012346')
    expect(everything).not.toContain('"123"')
  })

  it('the VISA test card succeeds too', async () => {
    const id = await createCheckout()
    expect((await pay(id, '4123450131001381')).status).toBe(303)
    expect(await record(id)).toMatchObject({paymentStatus: 'PAYMENT_SUCCESS', paymentScheme: 'VISA'})
  })

  it('the declined card fails, redirects to failure and raises CHECKOUT_FAILURE', async () => {
    const id = await createCheckout()
    expect(await pay(id, '5204730000002662')).toEqual({status: 303, location: 'https://shop.example/failed'})
    expect(await record(id)).toMatchObject({status: 'COMPLETED', paymentStatus: 'PAYMENT_FAILED'})
    expect(fake.events.map((e) => e.type)).toEqual(['CHECKOUT_FAILURE'])
    expect((await pay(id)).status).toBe(409)
  })

  it('declines any other valid card number', async () => {
    const other = await createCheckout()
    expect((await pay(other, '4111111111111111')).location).toBe('https://shop.example/failed')
    expect((await record(other)).paymentStatus).toBe('PAYMENT_FAILED')
  })

  it('refuses on the form, saying why, a number that fails the Luhn check and an expired card; nothing is charged', async () => {
    const id = await createCheckout()
    const typo = await pay(id, '5123 4567 8901 2345', {expiry: '12/30', cvc: '123'})
    expect(typo.status).toBe(400)
    expect(typo.html).toContain('This card number is not valid: check it for a mistyped digit.')
    expect(typo.html).toMatch(/<input id="cardNumber"[^>]*aria-invalid="true"/)
    // 10/26 ended on 31 Oct 2026; the sandbox clock is 21 Nov 2026.
    const expired = await pay(id, '5123456789012346', {expiry: '10/26'})
    expect(expired.status).toBe(400)
    expect(expired.html).toContain('This card expired at the end of 10/26.')
    expect(await record(id)).toMatchObject({status: 'CREATED', paymentStatus: 'PENDING_PAYMENT'})
    expect(fake.events).toEqual([])
    expect((await pay(id, '5123456789012346', {expiry: '11/26'})).location).toBe('https://shop.example/ok')
  })

  it('after a refusal the form keeps the card number and expiry as typed, but never the CVC', async () => {
    const id = await createCheckout()
    const res = await pay(id, '5123 4567 8901 2346', {expiry: '1/30', cvc: '987'})
    expect(res.html).toContain('Enter the expiry date as MM/YY.')
    expect(res.html).toContain('value="5123 4567 8901 2346"')
    expect(res.html).toContain('value="1/30"')
    expect(res.html).not.toContain('987')
    const injected = await pay(id, '"><script>x</script>')
    expect(injected.html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"')
  })

  it('every page says it is a sandbox and lists the test cards', async () => {
    const id = await createCheckout()
    const html = (await showPaymentPage(fake.ctx, id)).html!
    expect(html).toContain('Sandbox: no real money.')
    expect(html).toMatch(/<details><summary>Test cards<\/summary>[\s\S]*5123 4567 8901 2346[\s\S]*4123 4501 3100 1381[\s\S]*5204 7300 0000 2662/)
    expect((await showPaymentPage(fake.ctx, 'nope')).html).toContain('Sandbox: no real money.')
  })

  it('a checkout that can no longer be paid is explained in words, with no status codes', async () => {
    const outcomes: Record<string, string> = {}
    const paid = await createCheckout()
    await pay(paid)
    outcomes.paid = (await showPaymentPage(fake.ctx, paid)).html!
    await call('voidCheckout', {params: {checkoutId: paid}, body: {reason: 'duplicate'}})
    outcomes.voided = (await showPaymentPage(fake.ctx, paid)).html!
    const declined = await createCheckout()
    await pay(declined, '5204730000002662')
    outcomes.declined = (await showPaymentPage(fake.ctx, declined)).html!
    const cancelled = await createCheckout()
    await submitPaymentForm(fake.ctx, cancelled, {action: 'cancel'})
    outcomes.cancelled = (await showPaymentPage(fake.ctx, cancelled)).html!
    const expired = await createCheckout()
    fake.ctx.clock.advance(HOUR)
    outcomes.expired = (await showPaymentPage(fake.ctx, expired)).html!

    expect(outcomes.paid).toContain('This checkout has already been paid')
    expect(outcomes.paid).toContain('PHP 150.00 paid with Mastercard ending in 2346.')
    expect(outcomes.voided).toContain('The shop cancelled this payment and the card was not charged')
    expect(outcomes.declined).toContain('The card was declined')
    expect(outcomes.cancelled).toContain('This checkout was cancelled')
    expect(outcomes.expired).toContain('This checkout has expired')
    for (const [name, html] of Object.entries(outcomes)) {
      expect(html, name).toContain('Reference ORDER-1.')
      expect(html.replace(/<style>[\s\S]*<\/style>/, ''), name).not.toMatch(/\b(COMPLETED|EXPIRED|VOIDED|[A-Z]+_[A-Z_]+)\b/)
    }
  })

  it('cancelling is a dropout: redirect to cancel, CHECKOUT_DROPOUT', async () => {
    const id = await createCheckout()
    expect(await submitPaymentForm(fake.ctx, id, {action: 'cancel'})).toEqual({status: 303, location: 'https://shop.example/cart'})
    expect(await record(id)).toMatchObject({status: 'COMPLETED', paymentStatus: 'PAYMENT_CANCELLED'})
    expect(fake.events.map((e) => e.type)).toEqual(['CHECKOUT_DROPOUT'])
  })

  it('re-shows the form (400) for a malformed card, and the checkout stays payable', async () => {
    const id = await createCheckout()
    const res = await pay(id, '1234')
    expect(res.status).toBe(400)
    expect(res.html).toContain('card number')
    expect((await record(id)).status).toBe('CREATED')
    expect(fake.events).toEqual([])
  })

  it('without redirect URLs, shows the outcome on the page itself', async () => {
    const {redirectUrl: _, ...noRedirects} = REQUEST
    const id = await createCheckout(noRedirects)
    const res = await pay(id)
    expect(res.status).toBe(200)
    expect(res.html).toContain('Payment received')
  })
})

describe('void', () => {
  it('voids a successful payment the same day, once', async () => {
    const id = await createCheckout()
    await pay(id)
    await fake.ctx.clock.set('2026-11-21T15:59:59.000Z') // 23:59:59 in Manila
    const res = await call('voidCheckout', {params: {checkoutId: id}, body: {reason: 'duplicate'}})
    expect(res.body).toEqual({checkoutId: id, voidStatus: 'SUCCESS'})
    expect((await record(id)).paymentStatus).toBe('VOIDED')
    const again = await refusal('voidCheckout', {params: {checkoutId: id}, body: {reason: 'again'}})
    expect([again.status, again.code]).toEqual([400, 'PY0045'])
  })

  it('refuses from 00:00:00 UTC+8 of the next day with PY0073, saying only a refund is possible', async () => {
    const id = await createCheckout()
    await pay(id)
    await fake.ctx.clock.set('2026-11-21T16:00:00.000Z')
    const e = await refusal('voidCheckout', {params: {checkoutId: id}, body: {reason: 'late'}})
    expect(e.code).toBe('PY0073')
    expect(e.message).toBe('void window closed at 2026-11-21 23:59:59 +08:00; only a refund is possible now')
    expect((await record(id)).paymentStatus).toBe('PAYMENT_SUCCESS')
  })

  it('refuses an unpaid checkout (PY0045)', async () => {
    const id = await createCheckout()
    expect((await refusal('voidCheckout', {params: {checkoutId: id}, body: {reason: 'x'}})).code).toBe('PY0045')
  })
})

describe('refunds', () => {
  async function paidYesterday(): Promise<string> {
    const id = await createCheckout()
    await pay(id)
    fake.ctx.clock.advance(24 * HOUR)
    return id
  }

  it('refuses a refund on the transaction day (PY0072)', async () => {
    const id = await createCheckout()
    await pay(id)
    const e = await refusal('refundCheckout', {params: {checkoutId: id}, body: {reason: 'x', amount: {value: '10.00', currency: 'PHP'}}})
    expect(e.code).toBe('PY0072')
  })

  it('takes one partial refund and refuses a second (PY0082)', async () => {
    const id = await paidYesterday()
    const res = await call('refundCheckout', {
      params: {checkoutId: id},
      body: {reason: 'damaged', amount: {value: '50.00', currency: 'PHP'}},
    })
    const {refundId, status} = res.body as {refundId: string; status: string}
    expect(status).toBe('SUCCESS')
    expect(await record(id)).toMatchObject({paymentStatus: 'PAYMENT_SUCCESS', refundedAmount: '50.00'})
    const e = await refusal('refundCheckout', {params: {checkoutId: id}, body: {reason: 'more', amount: {value: '10.00', currency: 'PHP'}}})
    expect(e.code).toBe('PY0082')
    const list = (await call('listRefunds', {params: {checkoutId: id}})).body as any[]
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({
      id: refundId,
      checkout: id,
      reason: 'damaged',
      amount: {value: '50.00', currency: 'PHP'},
      status: 'SUCCESS',
    })
    expect((await call('getRefund', {params: {checkoutId: id, refundId}})).body).toEqual(list[0])
    expect((await refusal('getRefund', {params: {checkoutId: id, refundId: 'nope'}})).status).toBe(404)
  })

  it('a complete refund marks the checkout REFUNDED', async () => {
    const id = await paidYesterday()
    await call('refundCheckout', {params: {checkoutId: id}, body: {reason: 'all', amount: {value: '150.00', currency: 'PHP'}}})
    expect(await record(id)).toMatchObject({paymentStatus: 'REFUNDED', refundedAmount: '150.00'})
  })

  it('refuses more than paid (PY0048)', async () => {
    const id = await paidYesterday()
    const e = await refusal('refundCheckout', {params: {checkoutId: id}, body: {reason: 'x', amount: {value: '150.01', currency: 'PHP'}}})
    expect(e.code).toBe('PY0048')
  })

  it('keeps a FAILED refund in the list without using up the one refund', async () => {
    const id = await paidYesterday()
    await fake.state.refundOutcomes.set(['FAILED'])
    const failed = await call('refundCheckout', {
      params: {checkoutId: id},
      body: {reason: 'try', amount: {value: '150.00', currency: 'PHP'}},
    })
    expect((failed.body as any).status).toBe('FAILED')
    expect((await record(id)).refundedAmount).toBe('0.00')
    const ok = await call('refundCheckout', {params: {checkoutId: id}, body: {reason: 'again', amount: {value: '150.00', currency: 'PHP'}}})
    expect((ok.body as any).status).toBe('SUCCESS')
    const list = (await call('listRefunds', {params: {checkoutId: id}})).body as any[]
    expect(list.map((r) => r.status)).toEqual(['FAILED', 'SUCCESS'])
  })
})

describe('webhooks: one per event name', () => {
  it('registers, lists, updates and deletes; refuses a second webhook for a name (PY0039)', async () => {
    const a = (await call('registerWebhook', {body: {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/paid'}})).body as any
    expect(a).toMatchObject({name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/paid', createdAt: START, updatedAt: START})
    const dup = await refusal('registerWebhook', {body: {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://other.example/'}})
    expect([dup.status, dup.code]).toEqual([400, 'PY0039'])
    const b = (await call('registerWebhook', {body: {name: 'CHECKOUT_FAILURE', callbackUrl: 'https://shop.example/failed'}})).body as any
    expect(((await call('listWebhooks')).body as any[]).map((w) => w.id)).toEqual([a.id, b.id])

    const taken = await refusal('updateWebhook', {
      params: {webhookId: b.id},
      body: {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://x.example/'},
    })
    expect(taken.code).toBe('PY0039')
    fake.ctx.clock.advance(60_000)
    const updated = (
      await call('updateWebhook', {params: {webhookId: b.id}, body: {name: 'CHECKOUT_DROPOUT', callbackUrl: 'https://x.example/'}})
    ).body as any
    expect(updated).toMatchObject({id: b.id, name: 'CHECKOUT_DROPOUT', callbackUrl: 'https://x.example/', createdAt: START})
    expect(updated.updatedAt).not.toBe(START)

    expect((await call('deleteWebhook', {params: {webhookId: a.id}})).body).toEqual({id: a.id})
    const gone = await refusal('deleteWebhook', {params: {webhookId: a.id}})
    expect([gone.status, gone.code]).toEqual([404, 'PY0038'])
    expect(((await call('listWebhooks')).body as any[]).map((w) => w.id)).toEqual([b.id])
  })
})

describe('webhook targets (what the core delivers events to)', () => {
  it('names the callback URL registered for the event, and nothing when none is', async () => {
    await call('registerWebhook', {body: {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/paid'}})
    const event = (type: SandboxEvent['type']) => ({type, checkoutId: 'chk_1', payload: {}})
    expect(await checkoutModule.webhookTarget!(event('CHECKOUT_SUCCESS'), fake.ctx)).toBe('https://shop.example/paid')
    expect(await checkoutModule.webhookTarget!(event('CHECKOUT_FAILURE'), fake.ctx)).toBeUndefined()
  })
})

describe('customization', () => {
  const custom = {
    logoUrl: 'https://cdn.example/logo.png',
    iconUrl: 'https://cdn.example/favicon.ico',
    appleTouchIconUrl: 'https://cdn.example/touch.png',
    customTitle: 'Tea Shop',
    colorScheme: '#0a7d3b',
  }

  it('answers PY0065 (404) when none is set, and sets, reads and removes one', async () => {
    expect((await refusal('getCustomization')).code).toBe('PY0065')
    expect((await call('setCustomization', {body: custom})).body).toEqual(custom)
    expect((await call('getCustomization')).body).toEqual(custom)
    expect((await call('removeCustomization')).body).toEqual({message: 'Customization removed'})
    expect((await refusal('removeCustomization')).status).toBe(404)
  })

  it('is refused before the handler when a field is missing or the colour is not hex (the schema the core applies)', () => {
    const op = checkoutService.operations.setCustomization
    expect(op.body.safeParse({...custom, colorScheme: 'green'}).success).toBe(false)
    const {customTitle: _, ...four} = custom
    expect(op.body.safeParse(four).success).toBe(false)
  })
})

describe('seed', () => {
  it('adds a checkout paid today (voidable) and one paid earlier (refundable)', async () => {
    await checkoutModule.seed!(fake.ctx)
    const checkouts = [...await fake.state.checkouts.values()]
    expect(checkouts.map((c) => c.paymentStatus)).toEqual(['PAYMENT_SUCCESS', 'PAYMENT_SUCCESS'])
    const [today, earlier] = checkouts
    expect((await call('voidCheckout', {params: {checkoutId: today.id}, body: {reason: 'demo'}})).body).toMatchObject({
      voidStatus: 'SUCCESS',
    })
    const res = await call('refundCheckout', {
      params: {checkoutId: earlier.id},
      body: {reason: 'demo', amount: {value: '100.00', currency: 'PHP'}},
    })
    expect((res.body as any).status).toBe('SUCCESS')
  })
})
