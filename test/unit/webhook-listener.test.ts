import {createServer, type Server} from 'node:http'
import {MockAgent, request} from 'undici'
import {afterAll, afterEach, describe, expect, it} from 'vitest'

/**
 * The webhook listener in-process: what it prints and answers (with and without --forward-to),
 * and the --register bookkeeping (point the webhooks at it, put them back) against MockAgent.
 */
import {nextStepText} from '../../src/cli/hints.js'
import {ServiceClient} from '../../src/http/client.js'
import {closeConnections, setCarrier} from '../../src/http/connections.js'
import {USER_AGENT} from '../../src/http/user-agent.js'
import {
  type ChangedWebhook,
  formatEventLine,
  pointWebhooksAt,
  type ReceivedEvent,
  restoreWebhooks,
  type RunningListener,
  startListener,
} from '../../src/runtime/checkout/webhook-receiver.js'
import {mockCarrier} from '../helpers/command.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})
// The forwards go through the CLI's shared connections.
afterAll(closeConnections)

async function listener(forwardTo?: string): Promise<{events: ReceivedEvent[]; l: RunningListener}> {
  const events: ReceivedEvent[] = []
  const l = await startListener({
    port: 0,
    forwardTo,
    forwardTimeoutMs: 2000,
    onEvent(e) {
      events.push(e)
    },
  })
  cleanup.push(() => l.close())
  return {events, l}
}

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await request(url, {method: 'POST', body, headers: {'content-type': 'application/json', ...headers}})
  return {status: res.statusCode, body: await res.body.text()}
}

const paid = {id: 'chk_1', totalAmount: {value: '1500.00', currency: 'PHP'}, status: 'COMPLETED', paymentStatus: 'PAYMENT_SUCCESS'}

describe('webhook listener', () => {
  it('takes the event name from x-checkout-event, else from paymentStatus; answers 200', async () => {
    const {events, l} = await listener()
    expect((await post(l.url, JSON.stringify(paid), {'x-checkout-event': 'CHECKOUT_SUCCESS'})).status).toBe(200)
    expect((await post(l.url, JSON.stringify({...paid, id: 'chk_2', paymentStatus: 'PAYMENT_EXPIRED'}))).status).toBe(200)
    expect((await post(l.url, JSON.stringify({id: 'chk_3'}))).status).toBe(200)
    expect(events.map((e) => [e.event, e.checkoutId, e.amount, e.currency, e.answered])).toEqual([
      ['CHECKOUT_SUCCESS', 'chk_1', '1500.00', 'PHP', 200],
      ['CHECKOUT_DROPOUT', 'chk_2', '1500.00', 'PHP', 200],
      ['UNKNOWN', 'chk_3', null, null, 200],
    ])
  })

  it('answers 400 to a body that is not JSON and 405 to anything but POST', async () => {
    const {events, l} = await listener()
    expect((await post(l.url, 'not json')).status).toBe(400)
    expect(events).toHaveLength(1)
    const get = await request(l.url)
    await get.body.dump()
    expect(get.statusCode).toBe(405)
    expect(events).toHaveLength(1)
  })

  it("forwards the same body and content-type, and answers the sender with the forward's status and body", async () => {
    const got: {body: string; type?: string; event?: string; agent?: string}[] = []
    const app: Server = createServer((req, res) => {
      let text = ''
      req.on('data', (d) => (text += d))
      req.on('end', () => {
        got.push({body: text, type: req.headers['content-type'], event: req.headers['x-checkout-event'] as string, agent: req.headers['user-agent']})
        res.writeHead(got.length === 1 ? 503 : 202, {'content-type': 'text/plain'}).end(`app saw ${got.length}`)
      })
    })
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r))
    cleanup.push(() => new Promise((r) => app.close(r)))
    const appUrl = `http://127.0.0.1:${(app.address() as {port: number}).port}/hooks`
    const {events, l} = await listener(appUrl)

    const body = JSON.stringify(paid)
    const headers = {'content-type': 'application/json; charset=utf-8', 'x-checkout-event': 'CHECKOUT_SUCCESS'}
    expect(await post(l.url, body, headers)).toEqual({status: 503, body: 'app saw 1'})
    expect(await post(l.url, body, headers)).toEqual({status: 202, body: 'app saw 2'})
    expect(got[0]).toEqual({body, type: 'application/json; charset=utf-8', event: 'CHECKOUT_SUCCESS', agent: USER_AGENT})
    expect(events.map((e) => [e.forward?.status, e.forward?.url, e.answered])).toEqual([
      [503, appUrl, 503],
      [202, appUrl, 202],
    ])
  })

  it('answers 502 when the forward gets no answer, so the sender retries', async () => {
    const dead = createServer()
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r))
    const port = (dead.address() as {port: number}).port
    await new Promise((r) => dead.close(r))
    const {events, l} = await listener(`http://127.0.0.1:${port}/hooks`)

    const res = await post(l.url, JSON.stringify(paid))
    expect(res.status).toBe(502)
    expect(res.body).toContain('forward to')
    expect(events[0].forward).toMatchObject({status: null, error: 'ECONNREFUSED'})
    expect(events[0].answered).toBe(502)
  })
})

describe('--register bookkeeping', () => {
  const ORIGIN = 'http://127.0.0.1:4010'
  const BASE = '/checkout/v1/webhooks'
  const HEADERS = {'content-type': 'application/json', 'x-request-id': 'req-1'}
  const URL = 'http://127.0.0.1:5555/webhooks'

  function mock() {
    const agent = new MockAgent({enableCallHistory: true})
    agent.disableNetConnect()
    setCarrier(mockCarrier(agent))
    cleanup.push(async () => {
      setCarrier(undefined)
      await agent.close()
    })
    const client = new ServiceClient({
      target: {service: 'checkout', baseUrl: `${ORIGIN}/checkout`, publicKey: 'pk-test-1234', secretKey: 'sk-test-5678'},
      retry: {maxRetries: 0},
    })
    const calls = () =>
      (agent.getCallHistory()?.calls() ?? []).map((c) =>
        `${c.method} ${c.path} ${c.body ? JSON.parse(String(c.body)).callbackUrl : ''}`.trim(),
      )
    return {pool: agent.get(ORIGIN), client, calls}
  }

  const success = {id: 'wh_1', name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/paid'}

  it('updates the webhook that exists, registers the others, and puts back exactly that', async () => {
    const {pool, client, calls} = mock()
    pool.intercept({path: BASE, method: 'GET'}).reply(200, [success], {headers: HEADERS})
    pool.intercept({path: `${BASE}/wh_1`, method: 'PUT'}).reply(200, {...success, callbackUrl: URL}, {headers: HEADERS})
    pool.intercept({path: BASE, method: 'POST'}).reply(200, {id: 'wh_2', name: 'CHECKOUT_FAILURE', callbackUrl: URL}, {headers: HEADERS})
    pool.intercept({path: BASE, method: 'POST'}).reply(200, {id: 'wh_3', name: 'CHECKOUT_DROPOUT', callbackUrl: URL}, {headers: HEADERS})

    const changes = await pointWebhooksAt(client, URL)
    expect(changes).toEqual<ChangedWebhook[]>([
      {action: 'updated', id: 'wh_1', name: 'CHECKOUT_SUCCESS', previousUrl: 'https://shop.example/paid'},
      {action: 'created', id: 'wh_2', name: 'CHECKOUT_FAILURE'},
      {action: 'created', id: 'wh_3', name: 'CHECKOUT_DROPOUT'},
    ])

    pool.intercept({path: `${BASE}/wh_3`, method: 'DELETE'}).reply(200, {id: 'wh_3'}, {headers: HEADERS})
    // Someone already deleted wh_2: gone is what we wanted.
    pool.intercept({path: `${BASE}/wh_2`, method: 'DELETE'}).reply(404, {code: 'PY0038', message: 'not found'}, {headers: HEADERS})
    pool.intercept({path: `${BASE}/wh_1`, method: 'PUT'}).reply(200, success, {headers: HEADERS})
    expect(await restoreWebhooks(client, changes)).toEqual([])
    expect(calls().slice(4)).toEqual([`DELETE ${BASE}/wh_3`, `DELETE ${BASE}/wh_2`, `PUT ${BASE}/wh_1 https://shop.example/paid`])
  })

  it('when a step fails, puts back what it had changed before throwing', async () => {
    const {pool, client, calls} = mock()
    pool.intercept({path: BASE, method: 'GET'}).reply(200, [success], {headers: HEADERS})
    pool.intercept({path: `${BASE}/wh_1`, method: 'PUT'}).reply(200, {...success, callbackUrl: URL}, {headers: HEADERS})
    pool.intercept({path: BASE, method: 'POST'}).reply(500, {code: 'PY0000', message: 'boom'}, {headers: HEADERS})
    pool.intercept({path: `${BASE}/wh_1`, method: 'PUT'}).reply(200, success, {headers: HEADERS})

    await expect(pointWebhooksAt(client, URL)).rejects.toThrow(/Could not point the webhooks at .*boom.*What had been changed was put back/)
    expect(calls()).toEqual([`GET ${BASE}`, `PUT ${BASE}/wh_1 ${URL}`, `POST ${BASE} ${URL}`, `PUT ${BASE}/wh_1 https://shop.example/paid`])
  })

  it('a change it cannot put back is reported with the command that fixes it', async () => {
    const {pool, client} = mock()
    pool.intercept({path: `${BASE}/wh_1`, method: 'PUT'}).reply(503, {code: 'PY0000', message: 'down'}, {headers: HEADERS})
    const problems = await restoreWebhooks(client, [
      {action: 'updated', id: 'wh_1', name: 'CHECKOUT_SUCCESS', previousUrl: 'https://shop.example/paid'},
    ])
    expect(problems.map((p) => [nextStepText(p.fix), p.error.exitCode])).toEqual([
      ['opsctl webhook update wh_1 --name CHECKOUT_SUCCESS --url https://shop.example/paid', 6],
    ])
  })
})

describe('a received event as a line', () => {
  it('whoever posts it chooses its fields: control characters are shown escaped', () => {
    const line = formatEventLine({
      amount: '1.00',
      answered: 200,
      checkoutId: 'chk\u001B]0;pwned\u0007',
      currency: 'PHP',
      event: 'CHECKOUT_SUCCESS\r\u001B[2K',
      paymentStatus: 'PAYMENT_SUCCESS\u202E',
      status: 'COMPLETED',
      time: '2026-11-21T02:00:00.000Z',
    })
    expect(line).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u202A-\u202E]/)
    expect(line).toContain(String.raw`CHECKOUT_SUCCESS\r\e[2K`)
    expect(line).toContain(String.raw`chk\e]0;pwned\x07`)
  })
})
