/**
 * Where the sandbox sends webhooks (core/callback-targets.ts): link-local and metadata addresses
 * never; loopback and private addresses not on a `--public` sandbox unless it allows them; checked
 * when a callback URL is registered (400 naming callbackUrl) and again before each delivery.
 */
import {createServer} from 'node:http'
import {request} from 'undici'
import {afterEach, describe, expect, it, vi} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'

/** Names under `.test` resolve (for the sandbox's check before a delivery) to the address after the first label: `a9fe-a9fe.rebind.test` -> `::a9fe:a9fe`. */
const RESOLVES_TO: Record<string, string> = {}
vi.mock('node:dns/promises', async (original) => {
  const real = await original<typeof import('node:dns/promises')>()
  const lookup = (async (host: string, options: object) => {
    const address = RESOLVES_TO[host]
    if (address === undefined) return real.lookup(host, options as {all: true})
    return [{address, family: address.includes(':') ? 6 : 4}]
  }) as typeof real.lookup
  return {...real, default: {...real, lookup}, lookup}
})

/** IPv6 forms that carry a link-local or metadata IPv4 address: refused on every sandbox. */
const EMBEDDED_METADATA = [
  '::169.254.169.254', // IPv4-compatible, as typed (the URL parser writes it ::a9fe:a9fe)
  '::a9fe:a9fe',
  '::ffff:0:a9fe:a9fe', // IPv4-translated
  '64:ff9b::a9fe:a9fe', // NAT64
  '64:ff9b:1:a9fe:a9:fe00::', // local-use NAT64, a /48 prefix (RFC 6052 skips bits 64-71)
  '2002:a9fe:a9fe::', // 6to4
  '2001:0:4136:e378:8000:63bf:5601:5601', // Teredo: the client is 169.254.169.254, inverted
]
/** Not link-local, not global unicast either: refused on a --public sandbox only. */
const NOT_PUBLIC = ['::127.0.0.1', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '2002:0a00:0001::', '198.18.0.1', '198.19.255.1', '224.0.0.1', '255.255.255.255', '240.0.0.1', '100.64.0.1', '192.0.2.1', 'ff02::1', '2001:db8::1']
const bracket = (address: string) => (address.includes(':') ? `[${address}]` : address)

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

  it('refuses IPv6 forms that carry a link-local or metadata IPv4 address on every sandbox', async () => {
    for (const sb of [await sandbox(), await sandbox({refusePrivateCallbacks: true})]) {
      for (const address of EMBEDDED_METADATA) {
        const res = await register(sb, `http://${bracket(address)}/hook`)
        expect(res.statusCode, address).toBe(400)
        expect(res.json().parameters[0].description, address).toMatch(/link-local or cloud metadata address \(it carries 169\.254\.169\.254\)/)
      }
    }
  })

  it('refuses multicast, broadcast, benchmarking, reserved and embedded loopback addresses on a public sandbox; a local one accepts them, and public hosts are accepted on both', async () => {
    const local = await sandbox()
    const publicOne = await sandbox({refusePrivateCallbacks: true})
    const onLocal = (await register(local, 'https://shop.example/hook')).json().id
    const onPublic = (await register(publicOne, 'https://shop.example/hook')).json().id
    for (const address of NOT_PUBLIC) {
      const url = `http://${bracket(address)}/hook`
      expect((await update(local, onLocal, url)).statusCode, address).toBe(200)
      for (const refused of [await register(publicOne, url, 'CHECKOUT_FAILURE'), await update(publicOne, onPublic, url)]) {
        expect(refused.statusCode, address).toBe(400)
        expect(refused.json().message, address).toContain('not a public one: refused on a --public sandbox')
      }
    }

    for (const url of ['http://8.8.8.8/hook', 'http://[2606:4700::1111]/hook', 'http://[2002:808:808::]/hook', 'http://[64:ff9b::808:808]/hook']) {
      expect((await update(publicOne, onPublic, url)).statusCode, url).toBe(200)
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

  /** Registers a hook as an import would (no check), pays, and returns the delivery log once it has the attempt. */
  const deliverTo = async (sb: RunningSandbox, url: string) => {
    const send = (path: string, body?: object) =>
      request(`${sb.origin}${path}`, {
        body: body && JSON.stringify(body),
        headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey), 'content-type': 'application/json'},
        method: 'POST',
      }).then((r) => r.body.dump())
    await send('/checkout/v1/hooks', {name: 'CHECKOUT_SUCCESS', url})
    await send('/checkout/v1/checkouts/chk_1/pay')
    let attempts: {error?: string; status: null | number}[] = []
    while (attempts.length === 0) {
      const res = await request(`${sb.origin}/__sandbox/webhook-deliveries`, {headers: controlHeaders(sb.token)})
      attempts = ((await res.body.json()) as {deliveries: typeof attempts}).deliveries
      if (attempts.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    }

    return attempts
  }

  /** A loopback receiver counting what it got, for the time of `use`. */
  const withReceiver = async (use: (port: number, received: () => number) => Promise<void>) => {
    let received = 0
    const server = createServer((_req, res) => {
      received++
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      await use((server.address() as {port: number}).port, () => received)
    } finally {
      server.close()
    }
  }

  it('refuses a delivery to a loopback receiver on a public sandbox, recording why, and sends nothing', async () => {
    await withReceiver(async (port, received) => {
      // the test module registers hooks without the handlers' check: as an imported webhook would be
      const sb = await createSandbox({modules: testModules, port: 0, refusePrivateCallbacks: true})
      opened.push(sb)
      const attempts = await deliverTo(sb, `http://localhost:${port}/hook`)
      await sb.close()
      opened.pop()
      expect(attempts).toEqual([expect.objectContaining({error: expect.stringContaining('refused: localhost is a loopback address, not a public one'), status: null})])
      expect(received()).toBe(0)
    })
  })

  it('refuses a delivery whose name resolves now to an address of a refused class, embedded forms included', async () => {
    for (const [refusePrivateCallbacks, addresses] of [
      [false, EMBEDDED_METADATA],
      [true, NOT_PUBLIC],
    ] as const) {
      for (const [i, address] of addresses.entries()) {
        const name = `hook${i}.rebind.test`
        RESOLVES_TO[name] = address
        const sb = await createSandbox({modules: testModules, port: 0, refusePrivateCallbacks})
        opened.push(sb)
        const attempts = await deliverTo(sb, `http://${name}/hook`)
        expect(attempts, address).toEqual([expect.objectContaining({error: expect.stringContaining(`refused: ${name} resolves to`), status: null})])
        await sb.close()
        opened.pop()
      }
    }
  })

  it('delivers to a loopback receiver whose name resolves there on a local sandbox', async () => {
    await withReceiver(async (port, received) => {
      const sb = await createSandbox({modules: testModules, port: 0})
      opened.push(sb)
      const attempts = await deliverTo(sb, `http://localhost:${port}/hook`)
      expect(attempts).toEqual([expect.objectContaining({status: 200})])
      expect(received()).toBe(1)
    })
  })
})
