/**
 * `opsctl webhook listen` end to end: the built CLI as a long-running child process (it stops on
 * SIGINT and SIGTERM, and puts webhooks back as it stops: the process is the point), the real
 * sandbox in this process delivering webhooks to it, and loopback receivers this test starts (the
 * merchant's app). The other commands run in-process (test/helpers/command.ts) against the same
 * sandbox and config folder. Run `npm run build` first.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {createServer, type Server} from 'node:http'
import {createInterface} from 'node:readline'
import {afterAll, describe, expect, it, vi} from 'vitest'

import AuditList from '../../src/commands/audit/list.js'
import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import ProfileAdd from '../../src/commands/profile/add.js'
import WebhookList from '../../src/commands/webhook/list.js'
import WebhookListen from '../../src/commands/webhook/listen.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import {runJson as json, runCommand as run} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'
import {baseEnv, BIN, ROOT} from './harness.js'

const START = '2026-11-21T02:00:00Z'

const file = sandboxPerFile({clock: START})
const cleanups: (() => Promise<unknown> | unknown)[] = []

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

interface MerchantApp {
  requests: {body: any; event?: string}[]
  url: string
  /** Resolves once the app has received `count` requests. */
  received(count: number): Promise<void>
}

/** A merchant app on loopback: answers with `statuses` in turn (the last one repeats) and keeps what it got. */
async function merchantApp(statuses: number[] = [200]): Promise<MerchantApp> {
  const requests: {body: any; event?: string}[] = []
  const waiters = new Set<() => void>()
  const server: Server = createServer((req, res) => {
    let text = ''
    req.on('data', (d) => (text += d))
    req.on('end', () => {
      requests.push({body: JSON.parse(text), event: req.headers['x-checkout-event'] as string | undefined})
      const status = statuses[Math.min(requests.length - 1, statuses.length - 1)]
      res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify({seen: requests.length}))
      for (const w of waiters) w()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => server.close(r)))
  const {port} = server.address() as {port: number}
  const received = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => requests.length >= count && (waiters.delete(check), resolve())
      waiters.add(check)
      check()
    })
  return {received, requests, url: `http://127.0.0.1:${port}/hooks/checkout`}
}

interface Listener {
  url: string
  child: ChildProcess
  stdout: string[]
  stderr(): string
  /** Waits for a stdout line that satisfies `match`. */
  waitForLine(match: (line: string) => boolean, what: string): Promise<string>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Starts `opsctl webhook listen ...` and waits for it to say where it listens (on stderr). */
async function listen(args: string[]): Promise<Listener> {
  const child = spawn(process.execPath, [BIN, 'webhook', 'listen', ...args], {
    cwd: ROOT,
    env: {
      ...baseEnv(),
      OPSCTL_CONFIG_DIR: file.user.dir,
      OPSCTL_CHECKOUT_URL: file.sandbox.checkoutUrl,
      OPSCTL_HEALTH_URL: file.sandbox.healthUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const stdout: string[] = []
  let stderr = ''
  const waiters = new Set<() => void>()
  createInterface({input: child.stdout!}).on('line', (line) => {
    stdout.push(line)
    for (const w of waiters) w()
  })
  child.stderr!.on('data', (d) => {
    stderr += d
    for (const w of waiters) w()
  })
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'))

  // Bounded by the test's timeout; a listener that exits first fails the wait at once, saying why.
  const waitUntil = <T>(probe: () => T | undefined, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = probe()
        if (found === undefined) return
        waiters.delete(check)
        resolve(found)
      }

      waiters.add(check)
      // 'close' comes after the last output is read, so the last check sees all of it.
      child.once('close', (code) => {
        check()
        if (waiters.delete(check))
          reject(new Error(`listener exited (${code}) before ${what}; stdout: ${stdout.join('\n')}; stderr: ${stderr}`))
      })
      check()
    })

  const url = await waitUntil(() => /Listening on (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(stderr)?.[1], 'Listening on')
  return {
    url,
    child,
    stdout,
    stderr: () => stderr,
    waitForLine: (match, what) => waitUntil(() => stdout.find((l) => match(l)), what),
    async stop(signal = 'SIGINT') {
      child.kill(signal)
      return exited
    },
  }
}

async function webhooks(): Promise<{id: string; name: string; callbackUrl: string}[]> {
  const {webhooks: list} = await json(WebhookList, [])
  return list.map((w: any) => ({id: w.id, name: w.name, callbackUrl: w.callbackUrl})).sort((a: any, b: any) => a.name.localeCompare(b.name))
}

async function newCheckout(amount = '42.00'): Promise<string> {
  const {checkoutId} = await json(CheckoutCreate, ['--amount', amount, '--success-url', 'https://shop.example/ok'])
  return checkoutId
}

describe('webhook listen --register --json', () => {
  it('receives success, failure and dropout events, then puts back exactly the webhooks that were there', async () => {
    const app = await merchantApp()
    const registered = await json(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', app.url])
    const before = await webhooks()
    expect(before).toEqual([{id: registered.id, name: 'CHECKOUT_SUCCESS', callbackUrl: app.url}])

    const listener = await listen(['--register', '--json'])
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
    const during = await webhooks()
    expect(during.map((w) => [w.name, w.callbackUrl])).toEqual([
      ['CHECKOUT_DROPOUT', listener.url],
      ['CHECKOUT_FAILURE', listener.url],
      ['CHECKOUT_SUCCESS', listener.url],
    ])
    expect(during.find((w) => w.name === 'CHECKOUT_SUCCESS')!.id).toBe(registered.id)

    const event = async (checkoutId: string, name: string) =>
      JSON.parse(await listener.waitForLine((l) => l.includes(checkoutId) && l.includes(name), `${name} of ${checkoutId}`))

    const paid = await newCheckout('42.00')
    await json(CheckoutPay, [paid])
    expect(await event(paid, 'CHECKOUT_SUCCESS')).toMatchObject({
      event: 'CHECKOUT_SUCCESS',
      checkoutId: paid,
      amount: '42.00',
      currency: 'PHP',
      status: 'COMPLETED',
      paymentStatus: 'PAYMENT_SUCCESS',
      answered: 200,
    })

    const declined = await newCheckout('13.50')
    await json(CheckoutPay, [declined, '--card', '5204730000002662'])
    expect(await event(declined, 'CHECKOUT_FAILURE')).toMatchObject({checkoutId: declined, paymentStatus: 'PAYMENT_FAILED'})

    const dropped = await newCheckout('7.00')
    await json(CheckoutPay, [dropped, '--cancel'])
    expect(await event(dropped, 'CHECKOUT_DROPOUT')).toMatchObject({checkoutId: dropped, paymentStatus: 'PAYMENT_CANCELLED'})

    // stdout is data only: one JSON object per line, each with a time.
    for (const line of listener.stdout) expect(Date.parse(JSON.parse(line).time)).not.toBeNaN()
    expect(app.requests).toEqual([])

    expect(await listener.stop('SIGINT')).toBe(0)
    expect(listener.stderr()).toContain('Put back 3 webhook(s) as they were')
    expect(await webhooks()).toEqual(before)

    // The merchant's own webhook works again.
    const after = await newCheckout('5.00')
    await json(CheckoutPay, [after])
    await app.received(1)
    expect(app.requests.map((r) => r.body.id)).toEqual([after])
    expect(app.requests[0].event).toBe('CHECKOUT_SUCCESS')
  })

  it('SIGTERM restores too; the audit log holds one line per webhook change', async () => {
    const before = await webhooks()
    const lines = (await json(AuditList, [])).entries.length
    const listener = await listen(['--register', '--json'])
    expect(await listener.stop('SIGTERM')).toBe(0)
    expect(await webhooks()).toEqual(before)
    const {entries} = await json(AuditList, [])
    // one existing webhook updated and two registered; then two deleted and one updated back
    expect(entries.slice(lines).map((e: any) => [e.operation, e.outcome])).toEqual([
      ['updateWebhook', 'applied'],
      ['registerWebhook', 'applied'],
      ['registerWebhook', 'applied'],
      ['deleteWebhook', 'applied'],
      ['deleteWebhook', 'applied'],
      ['updateWebhook', 'applied'],
    ])
  })
})

describe('webhook listen --forward-to', () => {
  it("forwards each delivery and prints the forward's status; the sender's retries go through the listener", async () => {
    const app = await merchantApp([500, 500, 200])
    const before = await webhooks()
    const listener = await listen(['--register', '--forward-to', app.url])
    expect(listener.stderr()).toContain(`(forwarding to ${app.url})`)

    const id = await newCheckout('99.99')
    await json(CheckoutPay, [id])
    const forwards = () => listener.stdout.filter((l) => l.includes(id)).length
    await listener.waitForLine((l) => l.includes(id) && l.includes(`forward 500 ${app.url}`), 'the first forward')
    // the sandbox retries on its clock: 5 minutes after the first failure, 15 after the second
    await file.sandbox.control('clock', {advance: '5m'})
    await listener.waitForLine(() => forwards() === 2, 'the second forward')
    await file.sandbox.control('clock', {advance: '15m'})
    await listener.waitForLine((l) => l.includes(id) && l.includes(`forward 200 ${app.url}`), 'the third forward')

    // The app answered 500, 500, 200: the listener answered the sandbox the same, so it retried twice.
    expect(app.requests.map((r) => [r.body.id, r.event])).toEqual([
      [id, 'CHECKOUT_SUCCESS'],
      [id, 'CHECKOUT_SUCCESS'],
      [id, 'CHECKOUT_SUCCESS'],
    ])
    const lines = listener.stdout.filter((l) => l.includes(id))
    expect(lines).toHaveLength(3)
    expect(lines.map((l) => /forward (\d+) .* answered (\d+)/.exec(l)?.slice(1))).toEqual([
      ['500', '500'],
      ['500', '500'],
      ['200', '200'],
    ])
    expect(lines[0]).toMatch(new RegExp(`CHECKOUT_SUCCESS\\s+${id}\\s+99\\.99 PHP\\s+COMPLETED/PAYMENT_SUCCESS`))

    // The sandbox logs an attempt once its answer is in, which can be just after the listener printed it.
    await vi.waitFor(
      async () => {
        const {deliveries} = await file.sandbox.control('webhook-deliveries')
        const mine = deliveries.filter((d: any) => d.checkoutId === id)
        expect(mine.map((d: any) => [d.attempt, d.status, d.url])).toEqual([
          [1, 500, listener.url],
          [2, 500, listener.url],
          [3, 200, listener.url],
        ])
      },
      {interval: 50, timeout: 30_000},
    )

    expect(await listener.stop()).toBe(0)
    expect(await webhooks()).toEqual(before)
  })
})

describe('webhook listen refuses', () => {
  it('--register on a production profile: exit 2, nothing changed', async () => {
    const before = await webhooks()
    const secret = 'sk-live-never-sent-0123456789'
    const add = await run(
      ProfileAdd,
      [
        'live',
        '--env',
        'production',
        '--checkout-url',
        'https://checkout.example/checkout',
        '--health-url',
        'https://health.example',
        '--public-key',
        'pk-live-0123456789',
        '--secret-key-stdin',
      ],
      {stdin: secret},
    )
    expect(add.code).toBe(0)
    const result = await run(WebhookListen, ['--register', '--profile', 'live'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      '--register points webhooks at 127.0.0.1, which a production service cannot reach; profile live is production',
    )
    expect(result.stderr).not.toContain('Listening on')
    expect(result.stderr).not.toContain(secret)
    expect(await webhooks()).toEqual(before)
  })

  it('a --forward-to that is not an http(s) URL: exit 2', async () => {
    const result = await run(WebhookListen, ['--forward-to', 'ftp://example.com/x'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--forward-to must be an http(s) URL')
  })
})
