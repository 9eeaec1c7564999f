/**
 * Where the sandbox sends webhooks (core/callback-targets.ts): link-local and metadata addresses
 * never; loopback and private addresses not on a `--public` sandbox unless it allows them; checked
 * when a callback URL is registered (400 naming callbackUrl) and again before each delivery.
 */
import {createServer} from 'node:http'
import {request} from 'undici'
import {afterEach, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'

const ALWAYS_REFUSED = [
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.1.1:8080/hook',
  'http://[fe80::1]/hook',
  'http://[::ffff:169.254.169.254]/',
  'http://2852039166/', // 169.254.169.254 as one number
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://METADATA.google.internal./',
  'http://[fd00:ec2::254]/',
]
const PRIVATE = ['http://127.0.0.1:9/hook', 'http://localhost:3000/hook', 'http://[::1]/hook', 'http://10.0.0.5/hook', 'http://192.168.1.20/hook', 'http://172.20.0.1/hook']

describe('webhook callback targets', () => {
  const opened: RunningSandbox[] = []
  afterEach(async () => {
    for (const sb of opened.splice(0)) await sb.close()
  })

  const sandbox = async (options: {refusePrivateCallbacks?: boolean} = {}) => {
    const sb = await createSandbox({port: 0, ...options})
    opened.push(sb)
    return sb
  }

  const register = (sb: RunningSandbox, callbackUrl: string, name = 'CHECKOUT_SUCCESS') =>
    sb.app.inject({
      method: 'POST',
      url: '/checkout/v1/webhooks',
      headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey), 'content-type': 'application/json'},
      payload: {name, callbackUrl},
    })

  const update = (sb: RunningSandbox, id: string, callbackUrl: string) =>
    sb.app.inject({
      method: 'PUT',
      url: `/checkout/v1/webhooks/${id}`,
      headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey), 'content-type': 'application/json'},
      payload: {name: 'CHECKOUT_SUCCESS', callbackUrl},
    })

  it('refuses link-local and metadata addresses on every sandbox, naming callbackUrl', async () => {
    for (const sb of [await sandbox(), await sandbox({refusePrivateCallbacks: true})]) {
      for (const url of ALWAYS_REFUSED) {
        const res = await register(sb, url)
        expect(res.statusCode, url).toBe(400)
        expect(res.json().parameters).toEqual([{field: 'callbackUrl', description: expect.stringContaining('link-local or cloud metadata')}])
      }
    }
  })

  it('accepts loopback and private addresses on a local sandbox, refuses them on a public one unless allowed', async () => {
    const local = await sandbox()
    const publicOne = await sandbox({refusePrivateCallbacks: true})
    const kept = await register(local, 'https://shop.example/hooks/checkout')
    const onPublic = await register(publicOne, 'https://shop.example/hooks/checkout')
    expect(onPublic.statusCode).toBe(200)
    for (const url of PRIVATE) {
      expect((await update(local, kept.json().id, url)).statusCode, url).toBe(200)
      for (const refused of [await register(publicOne, url, 'CHECKOUT_FAILURE'), await update(publicOne, onPublic.json().id, url)]) {
        expect(refused.statusCode, url).toBe(400)
        expect(refused.json().message).toContain('--allow-private-callbacks')
      }
    }
  })

  it('refuses a delivery to a loopback receiver on a public sandbox, recording why, and sends nothing', async () => {
    let received = 0
    const server = createServer((_req, res) => {
      received++
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      // the test module registers hooks without the handlers' check: as an imported webhook would be
      const sb = await createSandbox({modules: testModules, port: 0, refusePrivateCallbacks: true})
      opened.push(sb)
      const url = `http://localhost:${(server.address() as {port: number}).port}/hook`
      await request(`${sb.origin}/checkout/v1/hooks`, {
        body: JSON.stringify({name: 'CHECKOUT_SUCCESS', url}),
        headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey), 'content-type': 'application/json'},
        method: 'POST',
      }).then((r) => r.body.dump())
      await request(`${sb.origin}/checkout/v1/checkouts/chk_1/pay`, {method: 'POST'}).then((r) => r.body.dump())
      let attempts: {error?: string; status: null | number}[] = []
      while (attempts.length === 0) {
        const res = await request(`${sb.origin}/__sandbox/webhook-deliveries`, {headers: controlHeaders(sb.token)})
        attempts = ((await res.body.json()) as {deliveries: typeof attempts}).deliveries
        if (attempts.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
      }

      await sb.close()
      expect(attempts).toEqual([expect.objectContaining({error: expect.stringContaining('refused: localhost is a loopback or private address'), status: null})])
      expect(received).toBe(0)
    } finally {
      server.close()
    }
  })
})
