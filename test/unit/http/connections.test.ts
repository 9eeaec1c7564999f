/**
 * Which connections a request takes with a proxy configured: loopback targets go direct whatever
 * NO_PROXY says; everything else goes to the proxy. Real loopback servers: a target on 127.0.0.2 and a
 * "proxy" on 127.0.0.1 that records every request and CONNECT it receives.
 */
import {createServer} from 'node:http'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {closeConnections, type Connections, sharedConnections} from '../../../src/http/connections.js'
import {LoopbackServers} from '../../helpers/loopback-servers.js'

const PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']

let saved: Record<string, string | undefined>
const servers = new LoopbackServers()

beforeEach(async () => {
  saved = Object.fromEntries(PROXY_VARS.map((k) => [k, process.env[k]]))
  for (const k of PROXY_VARS) delete process.env[k]
  await closeConnections()
})

afterEach(async () => {
  await closeConnections()
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }

  await servers.closeAll()
})

const get = (connections: Connections, url: string, headers: Record<string, string> = {}) =>
  connections.send({headers, maxBodyBytes: 1024 * 1024, method: 'GET', signal: AbortSignal.timeout(10_000), url: new URL(url)})

describe('proxy and loopback', () => {
  it('127.0.0.2 goes direct with HTTP_PROXY set and NO_PROXY not covering it: the proxy sees nothing', async () => {
    const proxy = await servers.recordingProxy()
    const target = await servers.listen(
      createServer((req, res) => res.end(`direct ${req.headers.authorization}`)),
      '127.0.0.2',
    )
    process.env.HTTP_PROXY = proxy.url
    process.env.NO_PROXY = 'internal.example.com'

    const res = await get(sharedConnections, `${target}/v1/webhooks`, {authorization: 'Basic c2stY2FuYXJ5Og=='})
    expect(res.status).toBe(200)
    expect(res.text).toBe('direct Basic c2stY2FuYXJ5Og==')
    expect(proxy.seen).toEqual([])
  })

  it('a non-loopback target goes through the proxy', async () => {
    const proxy = await servers.recordingProxy()
    process.env.HTTP_PROXY = proxy.url

    const answer = await get(sharedConnections, 'http://health.example.com/api/groups/demo')
      .then((r) => r.status)
      .catch((error: Error) => error.message)
    // undici tunnels through the proxy (CONNECT) or sends it the absolute URL: either way the proxy got it, and refused it.
    expect(proxy.seen.join(' ')).toContain('health.example.com:80')
    expect(String(answer)).toMatch(/502|Proxy/)
  })
})
