/**
 * Ctrl-C ends a command with 130, as a shell reports any command Ctrl-C ended: at the confirmation
 * prompt (a real pseudo-terminal: the key reaches the prompt as a person types it) nothing is sent
 * and the attempt is audited as declined; while a request is in flight the process ends by SIGINT,
 * a change in flight first audited as unknown. Real processes against a real sandbox, or a local
 * server that sends the signal when the request arrives (`npm run build` first).
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {type AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import {isolate, runCommand, type Runnable} from '../helpers/command.js'
import {baseEnv, BIN, ROOT, runInTerminal, type Sandbox, startSandbox} from './harness.js'

let sandbox: Sandbox
let env: ReturnType<typeof isolate>
let cliEnv: Record<string, string>

beforeAll(async () => {
  sandbox = await startSandbox()
  env = isolate()
  cliEnv = {
    OPSCTL_CONFIG_DIR: env.dir,
    OPSCTL_HEALTH_URL: sandbox.healthUrl,
    OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl,
    OPSCTL_SANDBOX_TOKEN: sandbox.token,
  }
  Object.assign(process.env, cliEnv)
})

afterAll(async () => {
  env?.cleanup()
  await sandbox?.stop()
})

async function json(Cmd: Runnable, argv: string[]): Promise<any> {
  const result = await runCommand(Cmd, [...argv, '--json'])
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout)
}

describe('Ctrl-C', () => {
  it('at the confirmation prompt of a void: exit 130, nothing sent, audited as declined', async () => {
    const {checkoutId} = await json(CheckoutCreate, ['--amount', '40.00', '--success-url', 'https://shop.example/ok'])
    await json(CheckoutPay, [checkoutId, '--card', '5123456789012346'])

    const result = await runInTerminal(['checkout', 'void', checkoutId, '--reason', 'duplicate order'], [{send: '\u0003', when: '(y/N)'}], {env: cliEnv})

    expect(result.code, result.stdout).toBe(130)
    expect(result.stdout).toContain('Cancelled; nothing was sent')
    const checkout = await json(CheckoutGet, [checkoutId])
    expect(checkout.paymentStatus).toBe('PAYMENT_SUCCESS')
    const audit = readFileSync(join(env.dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(audit.filter((l) => l.checkoutId === checkoutId && l.operation === 'voidCheckout').map((l) => l.outcome)).toEqual(['declined'])
  })

  it('while a request waits for its answer: the process ends by SIGINT (130 in a shell), with no outcome claimed', async () => {
    let child: ChildProcess | undefined
    const server: Server = createServer(() => child?.kill('SIGINT'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as AddressInfo
      let stdout = ''
      const ended = new Promise<{code: null | number; signal: NodeJS.Signals | null}>((resolve) => {
        child = spawn(process.execPath, [BIN, 'api', 'health', 'GET', '/api/users/me'], {
          cwd: ROOT,
          env: {...baseEnv(), OPSCTL_CONFIG_DIR: env.dir, OPSCTL_HEALTH_SESSION: 'abc', OPSCTL_HEALTH_URL: `http://127.0.0.1:${port}`},
        })
        child.stdout!.on('data', (d) => (stdout += d))
        child.on('exit', (code, signal) => resolve({code, signal}))
      })
      expect(await ended).toEqual({code: null, signal: 'SIGINT'})
      expect(stdout).toBe('')
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('while a void waits for its answer: ends by SIGINT, saying it may have been applied, audited as unknown with its checkout, amount and reason', async () => {
    const checkoutId = 'chk-interrupted-void'
    const paid = {id: checkoutId, paymentStatus: 'PAYMENT_SUCCESS', requestReferenceNumber: 'r-1', status: 'COMPLETED', totalAmount: {currency: 'PHP', value: 40}}
    let child: ChildProcess | undefined
    const requests: string[] = []
    // the checkout's read is answered (the void's rules need it); the void itself is never answered: Ctrl-C comes first
    const server: Server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`)
      if (req.method === 'GET') res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(paid))
      else child?.kill('SIGINT')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as AddressInfo
      let stdout = ''
      let stderr = ''
      const ended = new Promise<{code: null | number; signal: NodeJS.Signals | null}>((resolve) => {
        child = spawn(process.execPath, [BIN, 'checkout', 'void', checkoutId, '--reason', 'duplicate order', '--yes'], {
          cwd: ROOT,
          env: {...baseEnv(), OPSCTL_CHECKOUT_SECRET_KEY: 'sk-test-interrupt', OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`, OPSCTL_CONFIG_DIR: env.dir},
        })
        child.stdout!.on('data', (d) => (stdout += d))
        child.stderr!.on('data', (d) => (stderr += d))
        child.on('exit', (code, signal) => resolve({code, signal}))
      })

      expect(await ended).toEqual({code: null, signal: 'SIGINT'})
      expect(requests).toEqual([`GET /checkout/v1/checkouts/${checkoutId}`, `DELETE /checkout/v1/checkouts/${checkoutId}`])
      expect(stdout).toBe('')
      expect(stderr).toContain('the change may have been applied')
      const audit = readFileSync(join(env.dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      expect(audit.filter((l) => l.checkoutId === checkoutId)).toEqual([
        expect.objectContaining({amount: {currency: 'PHP', value: '40'}, operation: 'voidCheckout', outcome: 'unknown', reason: 'duplicate order'}),
      ])
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
