/**
 * Official clients send amounts and quantities as JSON numbers (paymaya-js-sdk declares
 * `value: number` and `quantity?: number`; its README sends `"value": 100, "quantity": 1`). The
 * sandbox accepts them and keeps and answers the decimal strings the spec shows; a number that
 * cannot be written exactly as an amount is a 400 naming the field. The CLI keeps sending strings.
 */
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {checkoutOps} from '../../src/services/checkout/operations.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'

let sb: RunningSandbox
beforeAll(async () => {
  sb = await createSandbox({port: 0})
})
afterAll(() => sb.close())

async function send(method: string, path: string, key: 'public' | 'secret', body?: unknown) {
  const res = await request(sb.origin + path, {
    method: method as 'POST',
    headers: {
      authorization: basicAuth(key === 'public' ? SANDBOX_KEYS.publicKey : SANDBOX_KEYS.secretKey),
      ...(body === undefined ? {} : {'content-type': 'application/json'}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return {status: res.statusCode, json: (await res.body.json()) as any}
}

const details = {discount: 0, serviceCharge: 0, shippingFee: 0, tax: 0, subtotal: 100}
/** The createCheckout example of paymaya-js-sdk's README, amounts and quantity as numbers. */
const sdkExample = (ref: string) => ({
  totalAmount: {value: 100, currency: 'PHP', details},
  buyer: {firstName: 'John', lastName: 'Doe', contact: {phone: '+639181008888', email: 'merchant@merchantsite.com'}},
  items: [
    {
      name: 'Canvas Slip Ons',
      quantity: 1,
      code: 'CVG-096732',
      description: 'Shoes',
      amount: {value: 100, details: {discount: 0, subtotal: 100}},
      totalAmount: {value: 100, details: {discount: 0, subtotal: 100}},
    },
  ],
  redirectUrl: {success: 'https://www.merchantsite.com/success'},
  requestReferenceNumber: ref,
  metadata: {},
})
const fieldsOf = (json: any) => (json.parameters ?? json.elements ?? []).map((p: any) => p.field)

describe('checkout amounts sent as JSON numbers', () => {
  it('the SDK example is accepted, and the checkout answers the decimal strings the spec shows', async () => {
    const created = await send('POST', '/checkout/v1/checkouts', 'public', sdkExample('SDK-1'))
    expect(created.status).toBe(200)
    const stored = await send('GET', `/checkout/v1/checkouts/${created.json.checkoutId}`, 'secret')
    expect(stored.json.totalAmount).toEqual({
      value: '100.00',
      currency: 'PHP',
      details: {discount: '0.00', serviceCharge: '0.00', shippingFee: '0.00', tax: '0.00', subtotal: '100.00'},
    })
    expect(stored.json.items[0]).toMatchObject({
      quantity: '1',
      amount: {value: '100.00', details: {discount: '0.00', subtotal: '100.00'}},
      totalAmount: {value: '100.00'},
    })
  })

  it('a number with one decimal is padded to two; strings are kept as they are', async () => {
    const body = {...sdkExample('SDK-2'), totalAmount: {value: 1500.5, currency: 'PHP'}, items: [{name: 'Tea', quantity: '2', amount: {value: '750.25'}}]}
    const created = await send('POST', '/checkout/v1/checkouts', 'public', body)
    expect(created.status).toBe(200)
    const stored = await send('GET', `/checkout/v1/checkouts/${created.json.checkoutId}`, 'secret')
    expect(stored.json.totalAmount.value).toBe('1500.50')
    expect(stored.json.items[0]).toMatchObject({quantity: '2', amount: {value: '750.25'}})
  })

  it('more than two decimals, a float sum, a negative number, a negative quantity and a boolean are each a 400 naming the field', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{...sdkExample('SDK-3'), totalAmount: {value: 100.125, currency: 'PHP'}}, 'totalAmount.value', /at most two decimals/],
      [{...sdkExample('SDK-4'), totalAmount: {value: 0.1 + 0.2, currency: 'PHP'}}, 'totalAmount.value', /at most two decimals/],
      [{...sdkExample('SDK-5'), items: [{name: 'Tea', amount: {value: -5}}]}, 'items.0.amount.value', /0 or more/],
      [{...sdkExample('SDK-6'), items: [{name: 'Tea', quantity: -1}]}, 'items.0.quantity', /0 or more/],
      [{...sdkExample('SDK-7'), totalAmount: {value: true, currency: 'PHP'}}, 'totalAmount.value', /received boolean/],
    ]
    for (const [body, field, why] of cases) {
      const res = await send('POST', '/checkout/v1/checkouts', 'public', body)
      expect(res.status, field).toBe(400)
      expect(fieldsOf(res.json)).toEqual([field])
      expect(res.json.message).toMatch(why)
    }
  })

  it('a refund amount sent as a number follows the same rule: 10.005 is refused naming amount.value', async () => {
    const res = await send('POST', '/checkout/v1/checkouts/chk_none/refunds', 'secret', {reason: 'x', amount: {value: 10.005, currency: 'PHP'}})
    expect(res.status).toBe(400)
    expect(fieldsOf(res.json)).toEqual(['amount.value'])
    expect(res.json.message).toMatch(/at most two decimals are allowed, got 10.005/)
  })

  it('what the CLI sends after validating with the table is strings, whatever it was given', () => {
    const sent = checkoutOps.initiateCheckout.body.parse(sdkExample('SDK-8'))
    expect(sent.totalAmount.value).toBe('100.00')
    expect(sent.items[0].quantity).toBe('1')
    expect(typeof sent.totalAmount.details?.tax).toBe('string')
  })
})
