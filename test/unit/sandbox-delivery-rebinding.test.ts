/**
 * DNS rebinding against the sandbox's webhook deliveries: a name that resolves to a public address
 * when the sandbox checks it before a delivery, then to one the rules refuse when the connection
 * resolves it. The connection resolves through callback-targets.ts's guardedLookup, so it is never
 * made. The resolver here answers as such a name would; the receiver is a real loopback server.
 */
import type {LookupAddress} from 'node:dns'

import {createServer, type Server} from 'node:http'
import {afterEach, describe, expect, it} from 'vitest'

import {type CallbackRules, guardedLookup} from '../../src/sandbox/core/callback-targets.js'
import {WebhookSender} from '../../src/sandbox/core/webhooks.js'

/** A resolver (node:dns's lookup's shape) that answers `address` for every name. */
function answering(address: string) {
  const family = address.includes(':') ? 6 : 4
  return ((_host: string, options: {all?: boolean}, callback: (e: Error | null, a: LookupAddress[] | string, f?: number) => void) => {
    if (options.all) callback(null, [{address, family}])
    else callback(null, address, family)
  }) as unknown as Parameters<typeof guardedLookup>[1]
}

function resolved(rules: CallbackRules, address: string, all: boolean): Promise<{address?: unknown; error?: NodeJS.ErrnoException}> {
  return new Promise((resolve) => {
    guardedLookup(rules, answering(address))('hooks.example.test', {all}, (error, found) => resolve(error ? {error} : {address: found}))
  })
}

const PUBLIC_SANDBOX: CallbackRules = {refusePrivate: true}
const LOCAL_SANDBOX: CallbackRules = {refusePrivate: false}

describe("the deliveries' resolver", () => {
  it('gives the addresses the rules allow, in both of node:net\'s forms', async () => {
    expect(await resolved(PUBLIC_SANDBOX, '93.184.216.34', false)).toEqual({address: '93.184.216.34'})
    expect(await resolved(PUBLIC_SANDBOX, '93.184.216.34', true)).toEqual({address: [{address: '93.184.216.34', family: 4}]})
    expect(await resolved(LOCAL_SANDBOX, '127.0.0.1', false)).toEqual({address: '127.0.0.1'})
  })

  it('fails the connection, naming why, on an address the rules refuse', async () => {
    const loopback = await resolved(PUBLIC_SANDBOX, '127.0.0.1', true)
    expect(loopback.error?.code).toBe('ERR_CALLBACK_REFUSED')
    expect(loopback.error?.message).toBe(
      'refused: hooks.example.test resolves to 127.0.0.1 is a loopback address, not a public one: refused on a --public sandbox (start it with --allow-private-callbacks to allow it)',
    )
    // link-local and metadata addresses, on every sandbox
    expect((await resolved(LOCAL_SANDBOX, '169.254.169.254', false)).error?.code).toBe('ERR_CALLBACK_REFUSED')
    expect((await resolved(LOCAL_SANDBOX, '::ffff:169.254.169.254', true)).error?.code).toBe('ERR_CALLBACK_REFUSED')
  })
})

describe('a delivery to a name that rebinds between the check and the connection', () => {
  let server: Server | undefined
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
    server = undefined
  })

  async function receiver(): Promise<{port: number; received: () => number}> {
    let received = 0
    server = createServer((_req, res) => {
      received++
      res.end()
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    return {port: (server.address() as {port: number}).port, received: () => received}
  }

  const delivery = (port: number) => ({attempt: 1, body: '{}', event: 'CHECKOUT_SUCCESS', id: 'dlv_1', url: `http://hooks.example.test:${port}/hook`})

  it('is not made on a public sandbox: the check saw a public address, the connection would reach the loopback', async () => {
    const {port, received} = await receiver()
    // the check before the attempt passes, as it does for a name that answered a public address then
    const sender = new WebhookSender(async () => undefined, guardedLookup(PUBLIC_SANDBOX, answering('127.0.0.1')))
    try {
      const result = await sender.attempt(delivery(port))
      expect(result).toMatchObject({status: null})
      // recorded as a refusal (never retried), with why, as one found by the check before it
      expect(result).toMatchObject({
        error: expect.stringMatching(/^refused: hooks\.example\.test resolves to 127\.0\.0\.1 is a loopback address, not a public one/),
        refused: true,
      })
      expect(received()).toBe(0)
    } finally {
      await sender.settle()
    }
  })

  it('is not made to an https callback either (undici resolves through the same resolver)', async () => {
    const sender = new WebhookSender(async () => undefined, guardedLookup(PUBLIC_SANDBOX, answering('10.0.0.5')))
    try {
      const result = await sender.attempt({...delivery(443), url: 'https://hooks.example.test/hook'})
      expect(result).toMatchObject({error: expect.stringMatching(/^refused: hooks\.example\.test resolves to 10\.0\.0\.5 is a private address/), refused: true, status: null})
    } finally {
      await sender.settle()
    }
  })

  it('control: on a local sandbox the same name reaches the loopback receiver through the same resolver', async () => {
    const {port, received} = await receiver()
    const sender = new WebhookSender(async () => undefined, guardedLookup(LOCAL_SANDBOX, answering('127.0.0.1')))
    try {
      expect(await sender.attempt(delivery(port))).toMatchObject({status: 200})
      expect(received()).toBe(1)
    } finally {
      await sender.settle()
    }
  })
})
