/**
 * The one transport, as its other users see it (the client has its own tests): the hosted-page
 * buyer, sandbox control calls, a form body. Same user-agent, same redaction, same exit-7 rules,
 * and --dry-run as a transport that records and stops before anything leaves.
 */
import {describe, expect, it} from 'vitest'

import {ExitCode, NetworkError, UsageError} from '../../../src/errors.js'
import {ServiceClient} from '../../../src/http/client.js'
import {createTransport} from '../../../src/http/create-transport.js'
import {DryRunRequest, DryRunTransport} from '../../../src/http/dry-run.js'
import {USER_AGENT} from '../../../src/http/user-agent.js'
import {actAsBuyer} from '../../../src/runtime/checkout/buyer.js'
import {sandboxControl} from '../../../src/runtime/sandbox-control.js'
import {mockedServicesPerTest} from '../../helpers/command.js'

const ORIGIN = 'http://127.0.0.1:4010'
const SECRET_KEY = 'sk-test-Qq12Ww34Ee56'
const CARD = '4123450131001381'
const PAGE = `<form method="post" action="/checkout/pay/chk_1"></form>`

const mocked = mockedServicesPerTest()

const sent = () => mocked.agent.getCallHistory()?.calls() ?? []
const buyerClient = (options: {dryRun?: boolean; trace?: (t: string) => void} = {}) =>
  new ServiceClient({...options, retry: {minTimeoutMs: 1}, target: {baseUrl: `${ORIGIN}/checkout`, secretKey: SECRET_KEY, service: 'checkout'}})

function payable(): void {
  const pool = mocked.agent.get(ORIGIN)
  pool.intercept({method: 'GET', path: '/checkout/pay/chk_1'}).reply(200, PAGE)
  pool.intercept({method: 'POST', path: '/checkout/pay/chk_1'}).reply(303, '', {headers: {location: 'https://shop.example/ok'}})
  pool
    .intercept({method: 'GET', path: '/checkout/v1/checkouts/chk_1'})
    .reply(200, {id: 'chk_1', paymentStatus: 'PAYMENT_SUCCESS', status: 'COMPLETED'}, {headers: {'content-type': 'application/json'}})
}

describe('one transport for every sender', () => {
  it('the buyer and a sandbox control call send the same user-agent as service calls', async () => {
    payable()
    mocked.agent.get(ORIGIN).intercept({method: 'GET', path: '/__sandbox/clock'}).reply(200, {now: '2027-01-01T00:00:00.000Z'})
    await actAsBuyer(buyerClient(), {action: 'pay', card: CARD, checkoutId: 'chk_1'})
    expect(await sandboxControl(createTransport(), {origin: ORIGIN, token: 'test-control-token'}, 'GET', 'clock')).toEqual({now: '2027-01-01T00:00:00.000Z'})
    expect(sent().map((c) => [c.method, new URL(c.fullUrl).pathname, (c.headers as Record<string, string>)['user-agent']])).toEqual([
      ['GET', '/checkout/pay/chk_1', USER_AGENT],
      ['POST', '/checkout/pay/chk_1', USER_AGENT],
      ['GET', '/checkout/v1/checkouts/chk_1', USER_AGENT],
      ['GET', '/__sandbox/clock', USER_AGENT],
    ])
  })

  it('--verbose traces the card form with the card masked', async () => {
    payable()
    const trace: string[] = []
    await actAsBuyer(buyerClient({trace: (t) => trace.push(t)}), {action: 'pay', card: CARD, checkoutId: 'chk_1', cvc: '987'})
    const post = trace.find((t) => t.startsWith('> POST'))
    expect(post).toContain('"action":"pay"')
    expect(post).toContain('"cardNumber":"[REDACTED]"')
    expect(trace.join('\n')).not.toMatch(new RegExp(`${CARD}|987|${SECRET_KEY}`))
  })

  it('a card form whose answer is lost is exit 7 "may have been applied"; a page that refuses the connection is not', async () => {
    const pool = mocked.agent.get(ORIGIN)
    pool.intercept({method: 'GET', path: '/checkout/pay/chk_1'}).reply(200, PAGE)
    pool.intercept({method: 'POST', path: '/checkout/pay/chk_1'}).replyWithError(Object.assign(new Error('socket hang up'), {code: 'ECONNRESET'}))
    const lost = await actAsBuyer(buyerClient(), {action: 'pay', checkoutId: 'chk_1'}).catch((error) => error)
    expect(lost).toBeInstanceOf(NetworkError)
    expect(lost).toMatchObject({exitCode: ExitCode.Network, outcomeUnknown: true})
    expect(lost.message).toBe(`payment page: ${ORIGIN} closed the connection without answering; the request may have been applied`)

    pool.intercept({method: 'GET', path: '/checkout/pay/chk_2'}).replyWithError(Object.assign(new Error('refused'), {code: 'ECONNREFUSED'})).times(4)
    const refused = await actAsBuyer(buyerClient(), {action: 'pay', checkoutId: 'chk_2'}).catch((error) => error)
    expect(refused).toMatchObject({exitCode: ExitCode.Network, outcomeUnknown: false})
  })

  it('a sandbox that does not answer is exit 7, naming its origin', async () => {
    mocked.agent.get(ORIGIN).intercept({method: 'POST', path: '/__sandbox/clock'}).replyWithError(Object.assign(new Error('refused'), {code: 'ECONNREFUSED'}))
    const error = await sandboxControl(createTransport(), {origin: ORIGIN, token: 'test-control-token'}, 'POST', 'clock', {advance: '1h'}).catch((error_) => error_)
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.message).toContain(`No sandbox answering at ${ORIGIN}`)
  })
})

describe('--dry-run is a transport', () => {
  it('records the buyer\'s first request, stops there, and sends nothing', async () => {
    const client = buyerClient({dryRun: true})
    const stop = await actAsBuyer(client, {action: 'pay', card: CARD, checkoutId: 'chk_1'}).catch((error) => error)
    expect(stop).toBeInstanceOf(DryRunRequest)
    expect(stop.request).toEqual({
      method: 'GET',
      url: `${ORIGIN}/checkout/pay/chk_1`,
      headers: {accept: 'text/html', 'user-agent': USER_AGENT},
    })
    expect((client.transport as DryRunTransport).recorded).toEqual([stop])
    expect(sent()).toEqual([])
  })

  it('shows a form body with the card masked and the action in clear, as curl and as data', async () => {
    const transport = new DryRunTransport()
    const form = {action: 'pay', cardNumber: CARD, cvc: '987', expiry: '12/29'}
    const stop = await transport.send({body: {form}, idempotent: false, label: 'payment page', method: 'POST', url: new URL(`${ORIGIN}/checkout/pay/c1`)}).catch((error) => error)
    expect(stop.curl).toContain(`--data 'action=pay&cardNumber=[REDACTED]&cvc=[REDACTED]&expiry=12%2F29'`)
    expect(stop.curl).toContain(`-H 'content-type: application/x-www-form-urlencoded'`)
    expect(stop.request.body).toEqual({action: 'pay', cardNumber: '[REDACTED]', cvc: '[REDACTED]', expiry: '12/29'})
    expect(JSON.stringify(stop)).not.toMatch(new RegExp(`${CARD}|987`))
  })

  it('still refuses card data over plain http to another machine (exit 2), as a real send would', async () => {
    const transport = new DryRunTransport()
    const refused = await transport
      .send({body: {form: {cardNumber: CARD}}, idempotent: false, label: 'payment page', method: 'POST', url: new URL('http://pay.example.com/pay/c1')})
      .catch((error) => error)
    expect(refused).toBeInstanceOf(UsageError)
    expect(transport.recorded).toEqual([])
  })
})
