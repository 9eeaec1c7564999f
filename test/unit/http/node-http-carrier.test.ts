/**
 * The plain-http carrier (src/http/node-http-carrier.ts) against real loopback servers: what the
 * transport relies on (the bytes sent, the whole answer read, an abort signal that ends the
 * exchange and its connection, a dropped answer as a failure).
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {NodeHttpCarrier} from '../../../src/http/node-http-carrier.js'
import {LoopbackServers} from '../../helpers/loopback-servers.js'

const servers = new LoopbackServers()
let carrier: NodeHttpCarrier

beforeEach(() => {
  carrier = new NodeHttpCarrier()
})

afterEach(async () => {
  await carrier.close()
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

const get = (url: string, signal = new AbortController().signal) => carrier.send({headers: {}, maxBodyBytes: 64 * 1024 * 1024, method: 'GET', signal, url: new URL(url)})

describe('an exchange', () => {
  it('sends method, path, headers and body, and gives back status, headers (set-cookie as a list) and body', async () => {
    const server = await serve((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        res.setHeader('set-cookie', ['a=1', 'b=2'])
        res.writeHead(201, {'content-type': 'application/json'})
        res.end(JSON.stringify({auth: req.headers.authorization, body, length: req.headers['content-length'], ua: req.headers['user-agent']}))
      })
    })
    const res = await carrier.send({
      headers: {authorization: 'Basic c2s6', 'user-agent': 'opsctl/test'},
      maxBodyBytes: 1024,
      method: 'POST',
      payload: '{"name":"Añá"}',
      signal: new AbortController().signal,
      url: new URL(`${server.url}/checkout/v1/webhooks?x=1`),
    })
    expect(res.status).toBe(201)
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2'])
    expect(JSON.parse(res.text)).toEqual({auth: 'Basic c2s6', body: '{"name":"Añá"}', length: '16', ua: 'opsctl/test'})
    expect(server.hits).toEqual(['POST /checkout/v1/webhooks?x=1'])
  })

  it('reads a large body whole', async () => {
    const chunk = 'x'.repeat(64 * 1024)
    const server = await serve((_req, res) => {
      res.writeHead(200)
      for (let i = 0; i < 80; i++) res.write(chunk)
      res.end()
    })
    expect((await get(`${server.url}/big`)).text.length).toBe(80 * chunk.length)
  })

  it('an answer cut short (the server closes mid-body) is a failure the retry rules know (ECONNRESET), not a short text', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, {'content-length': '100'})
      res.write('only part', () => req.socket.destroy())
    })
    expect((await rejection(get(`${server.url}/cut`))).code).toBe('ECONNRESET')
  })

  it('a closed port is ECONNREFUSED', async () => {
    const server = await serve(() => {})
    await servers.closeAll()
    expect((await rejection(get(`${server.url}/x`))).code).toBe('ECONNREFUSED')
  })
})

describe('abort', () => {
  it('a signal that expires ends the exchange with its TimeoutError and closes the connection', async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((r) => (closed = r))
    const server = await serve((req) => req.socket.on('close', () => closed()))
    const error = await rejection(get(`${server.url}/never`, AbortSignal.timeout(200)))
    expect(error.name).toBe('TimeoutError')
    await connectionClosed
  })

  it('a signal that expires while the body is coming ends it the same way', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, {'content-length': '100'})
      res.write('only part')
    })
    expect((await rejection(get(`${server.url}/stall`, AbortSignal.timeout(200)))).name).toBe('TimeoutError')
  })
})
