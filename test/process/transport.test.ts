/**
 * Where credentials may travel, as real processes (proxy variables are read by the process):
 * passwords and card data never go over plain http to a non-loopback host, and a loopback target
 * is never sent through a proxy. A loopback "proxy" records every connection it receives: a
 * refusal must come before any.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {runCli} from '../e2e/harness.js'
import {LoopbackServers} from '../helpers/loopback-servers.js'

let configDir: string
const servers = new LoopbackServers()
let proxy: {url: string; seen: string[]}



const run = (argv: string[], env: Record<string, string>, input?: string) =>
  runCli(argv, {env: {OPSCTL_CONFIG_DIR: configDir, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, ...env}, input})

beforeEach(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'opsctl-proc-'))
  proxy = await servers.recordingProxy()
})

afterEach(async () => {
  await servers.closeAll()
  rmSync(configDir, {force: true, recursive: true})
})

describe('credentials over plain http to a non-loopback host: refused before any connection (exit 2)', () => {
  const health = {OPSCTL_HEALTH_URL: 'http://health.example.com'}
  const cases: [string, string[], Record<string, string>, string | undefined][] = [
    ['users login --password-stdin', ['users', 'login', '--email', 'ana@example.com', '--password-stdin'], health, 'pw-Plain-Http-1'],
    [
      'users create --password-stdin',
      ['users', 'create', '--type', 'patient', '--email', 'ana@example.com', '--given-name', 'Ana', '--family-name', 'Cruz', '--password-stdin'],
      health,
      'pw-Plain-Http-2',
    ],
    ['checkout pay --card', ['checkout', 'pay', 'chk-1', '--card', '5123456789012346'], {OPSCTL_CHECKOUT_URL: 'http://pay.example.com/checkout'}, undefined],
  ]
  for (const [name, argv, env, input] of cases) {
    it(name, async () => {
      const r = await run(argv, env, input)
      expect(r.stderr).toMatch(/^Error: Refusing to send credentials over plain HTTP to (health|pay)\.example\.com/)
      expect(r.code).toBe(2)
      expect(proxy.seen).toEqual([])
    })
  }

  it('control: a request without any credential to the same host does go out (through the recording proxy)', async () => {
    const r = await run(['api', 'health', 'GET', '/api/groups/demo', '--no-auth', '--timeout', '5'], health)
    expect(r.code).not.toBe(0)
    expect(proxy.seen.join(' ')).toContain('health.example.com')
  })
})

describe('loopback targets are never proxied', () => {
  it('127.0.0.2 with HTTP_PROXY set and NO_PROXY not naming it: the request goes direct, the proxy sees nothing', async () => {
    const received: string[] = []
    const target = await servers.listen(
      createServer((req, res) => {
        received.push(`${req.method} ${req.url}`)
        res.writeHead(200, {'content-type': 'application/json'}).end('[]')
      }),
      '127.0.0.2',
    )
    const r = await run(['api', 'checkout', 'GET', '/v1/webhooks'], {
      NO_PROXY: 'internal.example.com',
      OPSCTL_CHECKOUT_SECRET_KEY: 'sk-loopback-Canary-1',
      OPSCTL_CHECKOUT_URL: `${target}/checkout`,
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(received).toEqual(['GET /checkout/v1/webhooks'])
    expect(proxy.seen).toEqual([])
  })
})

describe('what carries the bytes, in the built CLI', () => {
  const answer = (body: unknown) => (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(body))

  it('a non-loopback target travels through HTTP_PROXY: a loopback proxy that tunnels and answers', async () => {
    const tunnelled: string[] = []
    // What the proxy reaches at the far end of a CONNECT tunnel: here it answers itself.
    const far = createServer((req, res) => {
      tunnelled.push(`${req.method} ${req.headers.host}${req.url}`)
      answer({group: 'demo', via: 'proxy'})(req, res)
    })
    const forwarding = createServer((req, res) => {
      tunnelled.push(`${req.method} ${req.url}`)
      answer({group: 'demo', via: 'proxy'})(req, res)
    })
    forwarding.on('connect', (_req, socket) => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      far.emit('connection', socket)
    })
    const url = await servers.listen(forwarding)
    const r = await runCli(['api', 'health', 'GET', '/api/groups/demo', '--no-auth', '--timeout', '5'], {
      env: {HTTP_PROXY: url, OPSCTL_CONFIG_DIR: configDir, OPSCTL_HEALTH_URL: 'http://health.example.com'},
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({group: 'demo', via: 'proxy'})
    expect(tunnelled.join(' ')).toContain('health.example.com')
    expect(tunnelled.join(' ')).toContain('/api/groups/demo')
  })

  it('a GET whose connection drops is retried on the plain-http carrier: two attempts, one answer, exit 0', async () => {
    const hits: string[] = []
    const target = await servers.listen(
      createServer((req, res) => {
        hits.push(`${req.method} ${req.url}`)
        if (hits.length === 1) req.socket.destroy()
        else answer([{id: 'wh-1'}])(req, res)
      }),
    )
    const r = await run(['api', 'checkout', 'GET', '/v1/webhooks'], {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-retry-Canary-2', OPSCTL_CHECKOUT_URL: `${target}/checkout`})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([{id: 'wh-1'}])
    expect(hits).toEqual(['GET /checkout/v1/webhooks', 'GET /checkout/v1/webhooks'])
    expect(proxy.seen).toEqual([])
  })

  it('a server that never answers: exit 7 once --timeout expires, and the process ends then', async () => {
    const target = await servers.listen(createServer(() => {}))
    const started = performance.now()
    const r = await run(['api', 'checkout', 'GET', '/v1/webhooks', '--timeout', '1'], {
      OPSCTL_CHECKOUT_SECRET_KEY: 'sk-timeout-Canary-3',
      OPSCTL_CHECKOUT_URL: `${target}/checkout`,
    })
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/timed out after 1 s/)
    expect(r.stderr).not.toContain('sk-timeout-Canary-3')
    expect(performance.now() - started).toBeLessThan(15_000)
  })
})

describe("opsctl api stays under the profile's base URL", () => {
  const escapes = [
    '/../../tenantB/v1/webhooks',
    '/%2e%2e/%2e%2e/tenantB/v1/webhooks',
    '/%2E./.%2e/tenantB/v1/webhooks',
    String.raw`/..\..\tenantB/v1/webhooks`,
    String.raw`/%2e%2e%5c%2e%2e%5ctenantB/v1/webhooks`,
    '/%252e%252e/%252e%252e/tenantB/v1/webhooks',
    '/v1/./../../../tenantB/v1/webhooks',
  ]
  for (const path of escapes) {
    it(`${path}: exit 2, and the server sees nothing`, async () => {
      const received: string[] = []
      const target = await servers.listen(
        createServer((req, res) => {
          received.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`)
          res.writeHead(200, {'content-type': 'application/json'}).end('[]')
        }),
      )
      const env = {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-tenantA-Canary-4', OPSCTL_CHECKOUT_URL: `${target}/r/ok/tenantA/checkout`}
      const r = await run(['api', 'checkout', 'GET', path], env)
      expect(r.stderr).toMatch(/^Error: Invalid path .*nothing was sent/)
      expect(r.code).toBe(2)
      expect(received).toEqual([])
      // Control: the same server, a path under the base, is reached with the key.
      const ok = await run(['api', 'checkout', 'GET', '/v1/webhooks'], env)
      expect(ok.code, ok.stderr).toBe(0)
      expect(received).toEqual([`GET /r/ok/tenantA/checkout/v1/webhooks Basic ${Buffer.from('sk-tenantA-Canary-4:').toString('base64')}`])
    })
  }
})
