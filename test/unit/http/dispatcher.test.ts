/**
 * The process-wide dispatcher with a proxy configured: loopback targets go direct whatever NO_PROXY
 * says; everything else goes to the proxy. Real loopback servers: a target on 127.0.0.2 and a
 * "proxy" on 127.0.0.1 that records every request and CONNECT it receives.
 */
import {createServer, type Server} from 'node:http'
import {type AddressInfo} from 'node:net'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {closeDispatcher, getDispatcher} from '../../../src/http/dispatcher.js'

const PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']

let saved: Record<string, string | undefined>
let servers: Server[] = []

async function listen(server: Server, host: string): Promise<string> {
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, host, r))
  return `http://${host}:${(server.address() as AddressInfo).port}`
}

/** Answers 502 to whatever reaches it, after noting it: a proxy that never forwards. */
async function recordingProxy(): Promise<{url: string; seen: string[]}> {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    res.writeHead(502).end()
  })
  server.on('connect', (req, socket) => {
    seen.push(`CONNECT ${req.url}`)
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')
  })
  return {seen, url: await listen(server, '127.0.0.1')}
}

beforeEach(async () => {
  saved = Object.fromEntries(PROXY_VARS.map((k) => [k, process.env[k]]))
  for (const k of PROXY_VARS) delete process.env[k]
  await closeDispatcher()
})

afterEach(async () => {
  await closeDispatcher()
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }

  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  servers = []
})

describe('proxy and loopback', () => {
  it('127.0.0.2 goes direct with HTTP_PROXY set and NO_PROXY not covering it: the proxy sees nothing', async () => {
    const proxy = await recordingProxy()
    const target = await listen(
      createServer((req, res) => res.end(`direct ${req.headers.authorization}`)),
      '127.0.0.2',
    )
    process.env.HTTP_PROXY = proxy.url
    process.env.NO_PROXY = 'internal.example.com'

    const res = await (await getDispatcher()).request({
      origin: target,
      path: '/v1/webhooks',
      method: 'GET',
      headers: {authorization: 'Basic c2stY2FuYXJ5Og=='},
    })
    expect(res.statusCode).toBe(200)
    expect(await res.body.text()).toBe('direct Basic c2stY2FuYXJ5Og==')
    expect(proxy.seen).toEqual([])
  })

  it('a non-loopback target still goes through the proxy', async () => {
    const proxy = await recordingProxy()
    process.env.HTTP_PROXY = proxy.url

    const answer = await (await getDispatcher())
      .request({origin: 'http://health.example.com', path: '/api/groups/demo', method: 'GET'})
      .then((r) => r.statusCode)
      .catch((error: Error) => error.message)
    // undici tunnels through the proxy (CONNECT) or sends it the absolute URL: either way the proxy got it, and refused it.
    expect(proxy.seen.join(' ')).toContain('health.example.com:80')
    expect(String(answer)).toMatch(/502|Proxy/)
  })
})
