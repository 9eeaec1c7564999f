/**
 * Command tests of the checkout commands: the real command classes run in-process against
 * undici's MockAgent (no network at all), with a temporary config folder and the built-in
 * sandbox profile pointed at a fake loopback origin.
 */
import {Config} from '@oclif/core'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {MockAgent} from 'undici'
import {vi} from 'vitest'

import {setDispatcher} from '../../src/lib/http/dispatcher.js'
import {SANDBOX_KEYS} from '../../src/lib/sandbox-defaults.js'

export const ROOT = resolve(import.meta.dirname, '../..')
export const ORIGIN = 'http://127.0.0.1:4010'
export const BASE = '/checkout/v1'
export const JSON_HEADERS = {'content-type': 'application/json', 'x-request-id': 'req-123'}
export const SECRETS = [SANDBOX_KEYS.publicKey, SANDBOX_KEYS.secretKey]

let config: Config | undefined

export interface RunOutput {
  code: number
  stdout: string
  stderr: string
}

export interface CommandHarness {
  agent: MockAgent
  /** the mock pool of the fake service origin */
  pool: ReturnType<MockAgent['get']>
  run(cmd: {run(argv: string[], config: Config): Promise<unknown>}, argv: string[]): Promise<RunOutput>
  /** every request that reached the mock: method, path, parsed JSON body, headers */
  calls(): {method: string; path: string; body: any; headers: Record<string, unknown>}[]
  close(): Promise<void>
}

export async function commandHarness(env: Record<string, string> = {}): Promise<CommandHarness> {
  config ??= await Config.load({root: ROOT})
  const configDir = mkdtempSync(join(tmpdir(), 'opsctl-cmd-'))
  const saved = {...process.env}
  for (const key of Object.keys(process.env)) if (key.startsWith('OPSCTL_')) delete process.env[key]
  Object.assign(process.env, {OPSCTL_CONFIG_DIR: configDir, CI: 'true'}, env)

  const agent = new MockAgent({enableCallHistory: true})
  agent.disableNetConnect()
  setDispatcher(agent)

  return {
    agent,
    pool: agent.get(ORIGIN),
    async run(cmd, argv) {
      let stdout = ''
      let stderr = ''
      const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
        stdout += String(chunk)
        return true
      })
      const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
        stderr += String(chunk)
        return true
      })
      process.exitCode = undefined
      try {
        await cmd.run(argv, config!)
      } finally {
        out.mockRestore()
        err.mockRestore()
      }

      const code = Number(process.exitCode ?? 0)
      process.exitCode = undefined
      return {code, stdout, stderr}
    },
    calls() {
      return (agent.getCallHistory()?.calls() ?? []).map((c) => ({
        method: c.method,
        path: c.path,
        body: parseBody(c.body),
        headers: c.headers as Record<string, unknown>,
      }))
    },
    async close() {
      setDispatcher(undefined)
      await agent.close()
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
      rmSync(configDir, {force: true, recursive: true})
    },
  }
}

function parseBody(body: unknown): unknown {
  if (body === null || body === undefined || body === '') return undefined
  try {
    return JSON.parse(String(body))
  } catch {
    return String(body)
  }
}

/** A checkout record as the service shows it. */
export function checkoutRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'chk_1',
    totalAmount: {value: '1500.00', currency: 'PHP'},
    items: [{name: 'Tea', quantity: '1', amount: {value: '1500.00'}, totalAmount: {value: '1500.00'}}],
    requestReferenceNumber: 'ORDER-1',
    status: 'COMPLETED',
    paymentStatus: 'PAYMENT_SUCCESS',
    paymentType: 'CREDIT_CARD',
    paymentScheme: 'MASTERCARD',
    isAutoRedirect: true,
    refundedAmount: '0.00',
    createdAt: '2026-11-21T02:00:00.000Z',
    updatedAt: '2026-11-21T02:05:00.000Z',
    expiredAt: '2026-11-21T03:00:00.000Z',
    paymentDetails: {paymentAt: '2026-11-21T02:05:00.000Z', scheme: 'MASTERCARD', last4: '2346'},
    ...overrides,
  }
}

/** The `Date` header of a service answer at this instant. */
export function dateHeader(iso: string): Record<string, string> {
  return {...JSON_HEADERS, date: new Date(iso).toUTCString()}
}
