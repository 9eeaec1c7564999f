/**
 * The HTTP layer against real loopback servers (node:http), for what a mock cannot show: the time
 * a Retry-After makes the client wait, a timeout, a dropped connection and a refused one.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {type AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {z} from 'zod'

import {ApiError, ExitCode, NetworkError} from '../../../src/errors.js'
import {ServiceClient} from '../../../src/http/client.js'
import {closeConnections} from '../../../src/http/connections.js'
import {operation} from '../../../src/http/operation.js'

const getWebhooks = operation({
  id: 'listWebhooks',
  service: 'checkout',
  method: 'GET',
  path: '/v1/webhooks',
  auth: 'secret',
  response: z.array(z.looseObject({id: z.string()})),
  successStatus: 200,
  idempotent: true,
})
const registerWebhook = operation({
  id: 'registerWebhook',
  service: 'checkout',
  method: 'POST',
  path: '/v1/webhooks',
  auth: 'secret',
  body: z.looseObject({name: z.string(), callbackUrl: z.string()}),
  successStatus: 200,
  idempotent: false,
})
const webhook = {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://merchant.example.com/hook'}

interface Hit {
  method: string
  url: string
  at: number
}

let servers: Server[] = []

afterEach(async () => {
  await closeConnections()
  for (const s of servers) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }

  servers = []
})

/** A loopback server whose n-th request (0-based) is answered by handlers[n] (the last one repeats). */
async function serve(...handlers: ((req: IncomingMessage, res: ServerResponse) => void)[]): Promise<{url: string; hits: Hit[]}> {
  const hits: Hit[] = []
  const server = createServer((req, res) => {
    hits.push({method: req.method!, url: req.url!, at: performance.now()})
    req.resume()
    req.on('end', () => handlers[Math.min(hits.length - 1, handlers.length - 1)](req, res))
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkout`, hits}
}

async function closedPort(): Promise<string> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const {port} = server.address() as AddressInfo
  await new Promise((r) => server.close(r))
  return `http://127.0.0.1:${port}/checkout`
}

function client(baseUrl: string, timeoutMs = 10_000): ServiceClient {
  return new ServiceClient({target: {service: 'checkout', baseUrl, secretKey: 'sk-test-Ee55Ff66Gg77Hh88'}, timeoutMs})
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, {'content-type': 'application/json', ...headers})
    res.end(JSON.stringify(body))
  }

async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }

  throw new Error('expected the call to fail')
}

describe('Retry-After', () => {
  it('an idempotent GET waits as long as Retry-After says before the next attempt', async () => {
    const {url, hits} = await serve(json(503, {message: 'busy'}, {'retry-after': '2'}), json(200, [{id: 'w-1'}]))
    const res = await client(url).call(getWebhooks)
    expect(res.data).toEqual([{id: 'w-1'}])
    expect(hits).toHaveLength(2)
    const waited = hits[1].at - hits[0].at
    expect(waited).toBeGreaterThanOrEqual(1950)
    expect(waited).toBeLessThan(4000)
  })

  it('without Retry-After the first retry comes after the short backoff', async () => {
    const {url, hits} = await serve(json(503, {message: 'busy'}), json(200, []))
    await client(url).call(getWebhooks)
    expect(hits).toHaveLength(2)
    expect(hits[1].at - hits[0].at).toBeLessThan(1500)
  })

  it('a non-idempotent POST that gets 503 with Retry-After is not retried', async () => {
    const {url, hits} = await serve(json(503, {message: 'busy'}, {'retry-after': '1'}))
    const error = await failure(client(url).call(registerWebhook, {body: webhook}))
    expect(error).toBeInstanceOf(ApiError)
    expect(error.exitCode).toBe(ExitCode.Server)
    expect(hits).toHaveLength(1)
  })
})

describe('timeout', () => {
  it('a server that never answers is exit 7 once --timeout expires', async () => {
    const {url} = await serve(() => {})
    const started = performance.now()
    const error = await failure(client(url, 400).call(getWebhooks))
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.exitCode).toBe(ExitCode.Network)
    expect(error.message).toMatch(/timed out after 0\.4 s/)
    expect(error.suggestions.join(' ')).toMatch(/--timeout/)
    expect(elapsed).toBeGreaterThanOrEqual(350)
    expect(elapsed).toBeLessThan(3000)
  })

  it('a Retry-After longer than what is left of --timeout is not waited for: the 503 comes back at once (exit 6)', async () => {
    const {url, hits} = await serve(json(503, {message: 'busy, come back later'}, {'retry-after': '5', 'x-request-id': 'req-503'}))
    const started = performance.now()
    const error = await failure(client(url, 2000).call(getWebhooks))
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(ApiError)
    expect(error.exitCode).toBe(ExitCode.Server)
    expect(error.serverMessage).toBe('busy, come back later')
    expect(error.requestId).toBe('req-503')
    expect(elapsed).toBeLessThan(1000)
    expect(hits).toHaveLength(1)
  })

  it('backoff retries stop before the deadline instead of waiting past it', async () => {
    const {url, hits} = await serve(json(503, {message: 'busy'}))
    const started = performance.now()
    // Waits of 200, 400, 800 ms (1.4 s in all), then 1.6 s, which would end after the 2.5 s budget.
    const patient = new ServiceClient({
      target: {service: 'checkout', baseUrl: url, secretKey: 'sk-test-Ee55Ff66Gg77Hh88'},
      timeoutMs: 2500,
      retry: {maxRetries: 10, minTimeoutMs: 200, maxTimeoutMs: 10_000},
    })
    const error = await failure(patient.call(getWebhooks))
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(ApiError)
    expect(error.exitCode).toBe(ExitCode.Server)
    expect(hits).toHaveLength(4)
    expect(elapsed).toBeLessThan(2500)
  })

  it('a non-idempotent request that times out has an unknown outcome', async () => {
    const {url} = await serve(() => {})
    const error = await failure(client(url, 300).call(registerWebhook, {body: webhook}))
    expect(error.exitCode).toBe(ExitCode.Network)
    expect(error.outcomeUnknown).toBe(true)
  })
})

describe('dropped and refused connections', () => {
  it('a non-idempotent POST whose connection drops after sending: exit 7, outcome unknown, sent once', async () => {
    const {url, hits} = await serve((req) => req.socket.destroy())
    const error = await failure(client(url).call(registerWebhook, {body: webhook}))
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.exitCode).toBe(ExitCode.Network)
    expect(error.outcomeUnknown).toBe(true)
    expect(error.message).toContain('the request may have been applied')
    expect(error.suggestions[0]).toMatch(/Check whether it took effect before sending it again/)
    expect(error.toJSON()).toMatchObject({exitCode: 7, outcomeUnknown: true})
    expect(hits).toHaveLength(1)
  })

  it('a non-idempotent POST to a closed port: exit 7, outcome known (nothing was applied)', async () => {
    const url = await closedPort()
    const error = await failure(client(url).call(registerWebhook, {body: webhook}))
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.exitCode).toBe(ExitCode.Network)
    expect(error.outcomeUnknown).toBe(false)
    expect(error.message).toMatch(/refused the connection$/)
    expect(error.toJSON()).toMatchObject({exitCode: 7, outcomeUnknown: false})
  })

  it('an idempotent GET whose connection drops is retried', async () => {
    const {url, hits} = await serve((req) => req.socket.destroy(), json(200, [{id: 'w-2'}]))
    const res = await client(url).call(getWebhooks)
    expect(res.data).toEqual([{id: 'w-2'}])
    expect(hits).toHaveLength(2)
  })

  it('an idempotent GET to a closed port ends in exit 7 after its retries', async () => {
    const url = await closedPort()
    const error = await failure(client(url).call(getWebhooks))
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.exitCode).toBe(ExitCode.Network)
    expect(error.message).toMatch(/127\.0\.0\.1:\d+ refused the connection/)
  })
})
