/**
 * The plain-http carrier under undici's API (src/http/carrier.ts), against real loopback servers:
 * what the transport relies on (request(), the retry interceptor, abort signals, undici's
 * timeouts and their error codes, back-pressure on a large body, close) behaves as on an undici Agent.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {type Dispatcher, interceptors} from 'undici'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {NodeHttpCarrier} from '../../../src/http/carrier.js'
import {closeDispatcher, getDispatcher} from '../../../src/http/dispatcher.js'
import {LoopbackServers} from '../../helpers/loopback-servers.js'

const servers = new LoopbackServers()
let carrier: NodeHttpCarrier

beforeEach(() => {
  carrier = new NodeHttpCarrier()
})

afterEach(async () => {
  await carrier.destroy()
  await closeDispatcher()
  await servers.closeAll()
})

/** A loopback server whose n-th request (0-based) is answered by handlers[n] (the last one repeats); counts requests. */
async function serve(...handlers: ((req: IncomingMessage, res: ServerResponse) => void)[]): Promise<{url: string; hits: string[]}> {
  const hits: string[] = []
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`)
    handlers[Math.min(hits.length - 1, handlers.length - 1)](req, res)
  })
  return {hits, url: await servers.listen(server)}
}

async function rejection(promise: Promise<unknown>): Promise<Error & {code?: string}> {
  try {
    await promise
  } catch (error) {
    return error as Error & {code?: string}
  }

  throw new Error('expected the request to fail')
}

describe('the process-wide dispatcher', () => {
  it('without a proxy variable, plain http travels on the carrier', async () => {
    const saved = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'].filter((k) => process.env[k] !== undefined)
    expect(saved).toEqual([])
    expect(await getDispatcher()).toBeInstanceOf(NodeHttpCarrier)
  })
})

describe('an exchange', () => {
  it('sends method, path, headers and body, and gives back status, headers (repeated ones as a list) and body', async () => {
    const server = await serve((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        res.setHeader('set-cookie', ['a=1', 'b=2'])
        res.writeHead(201, {'content-type': 'application/json'})
        res.end(JSON.stringify({auth: req.headers.authorization, body, length: req.headers['content-length'], ua: req.headers['user-agent']}))
      })
    })
    const res = await carrier.request({
      body: '{"name":"Ana"}',
      headers: {authorization: 'Basic c2s6', 'user-agent': 'opsctl/test'},
      method: 'POST',
      origin: server.url,
      path: '/checkout/v1/webhooks?x=1',
    })
    expect(res.statusCode).toBe(201)
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2'])
    expect(await res.body.json()).toEqual({auth: 'Basic c2s6', body: '{"name":"Ana"}', length: '14', ua: 'opsctl/test'})
    expect(server.hits).toEqual(['POST /checkout/v1/webhooks?x=1'])
  })

  it('reads a large body whole (the reader pauses and resumes the stream)', async () => {
    const chunk = 'x'.repeat(64 * 1024)
    const server = await serve((_req, res) => {
      res.writeHead(200)
      for (let i = 0; i < 80; i++) res.write(chunk)
      res.end()
    })
    const res = await carrier.request({method: 'GET', origin: server.url, path: '/big'})
    expect((await res.body.text()).length).toBe(80 * chunk.length)
  })
})

describe('timeouts', () => {
  it('headersTimeout: a server that never answers fails with undici\'s UND_ERR_HEADERS_TIMEOUT', async () => {
    const server = await serve(() => {})
    const error = await rejection(carrier.request({headersTimeout: 200, method: 'GET', origin: server.url, path: '/slow'}))
    expect(error.code).toBe('UND_ERR_HEADERS_TIMEOUT')
    expect(server.hits).toEqual(['GET /slow'])
  })

  it('bodyTimeout: a body that stops coming fails with UND_ERR_BODY_TIMEOUT', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, {'content-length': '100'})
      res.write('only part')
    })
    const res = await carrier.request({bodyTimeout: 200, method: 'GET', origin: server.url, path: '/stall'})
    const error = await rejection(res.body.text())
    expect(error.code).toBe('UND_ERR_BODY_TIMEOUT')
  })

  it('an abort signal that expires ends the request with a TimeoutError and closes its connection', async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((r) => (closed = r))
    const server = await serve((req) => req.socket.on('close', () => closed()))
    const error = await rejection(carrier.request({method: 'GET', origin: server.url, path: '/never', signal: AbortSignal.timeout(200)}))
    expect(error.name).toBe('TimeoutError')
    await connectionClosed
  })
})

describe('undici\'s retry interceptor on the carrier', () => {
  const retry = () => interceptors.retry({maxRetries: 2, minTimeout: 10, maxTimeout: 10, methods: ['GET'], throwOnError: false})

  it('an idempotent GET whose connection drops is sent again and gets the second answer', async () => {
    const server = await serve(
      (req) => req.socket.destroy(),
      (_req, res) => res.writeHead(200, {'content-type': 'application/json'}).end('{"ok":true}'),
    )
    const res = await carrier.compose(retry()).request({method: 'GET', origin: server.url, path: '/v1/webhooks'})
    expect(res.statusCode).toBe(200)
    expect(await res.body.json()).toEqual({ok: true})
    expect(server.hits).toEqual(['GET /v1/webhooks', 'GET /v1/webhooks'])
  })

  it('a 503 is retried; the answer after it is the one returned', async () => {
    const server = await serve(
      (_req, res) => res.writeHead(503).end('busy'),
      (_req, res) => res.writeHead(200).end('done'),
    )
    const res = await carrier.compose(retry()).request({method: 'GET', origin: server.url, path: '/v1/x'})
    expect(res.statusCode).toBe(200)
    expect(await res.body.text()).toBe('done')
    expect(server.hits).toHaveLength(2)
  })
})

describe('what the carrier hands to undici', () => {
  it('an upgrade goes to undici\'s connection pool, loaded at that first request, and gets its 101 and socket', async () => {
    const server = createServer()
    server.on('upgrade', (req, socket) => {
      socket.end(`HTTP/1.1 101 Switching Protocols\r\nupgrade: ${req.headers.upgrade}\r\nconnection: upgrade\r\n\r\nhello`)
    })
    const url = await servers.listen(server)
    // undici's UpgradeOptions type leaves out `origin`, which an Agent needs
    const options = {origin: url, path: '/chat', protocol: 'opsctl-test'} as Dispatcher.UpgradeOptions
    const upgraded = await carrier.upgrade(options)
    expect(upgraded.headers.upgrade).toBe('opsctl-test')
    const [first] = (await upgraded.socket.toArray()) as Buffer[]
    expect(String(first)).toBe('hello')
  })
})

describe('close', () => {
  it('lets a request in flight finish, then refuses new ones', async () => {
    let answer!: () => void
    const server = await serve((_req, res) => (answer = () => res.end('late')))
    const pending = carrier.request({method: 'GET', origin: server.url, path: '/a'})
    await expect.poll(() => server.hits.length).toBe(1)
    const closed = carrier.close()
    answer()
    expect(await (await pending).body.text()).toBe('late')
    await closed
    const error = await rejection(carrier.request({method: 'GET', origin: server.url, path: '/b'}))
    expect(error.code).toBe('UND_ERR_CLOSED')
  })
})
