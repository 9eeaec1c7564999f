/**
 * Command tests of the checkout commands: the real command classes run in-process against
 * undici's MockAgent (no network at all), with a temporary config folder and the built-in
 * sandbox profile pointed at a fake loopback origin.
 */
import type {MockAgent} from 'undici'

import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {isolate, mockServices, type RecordedCall, runCommand} from './run-command.js'

export const ORIGIN = 'http://127.0.0.1:4010'
export const BASE = '/checkout/v1'
export const JSON_HEADERS = {'content-type': 'application/json', 'x-request-id': 'req-123'}
export const SECRETS = [SANDBOX_KEYS.publicKey, SANDBOX_KEYS.secretKey]

export interface RunOutput {
  code: number
  stdout: string
  stderr: string
}

export interface CommandHarness {
  agent: MockAgent
  /** the mock pool of the fake service origin */
  pool: ReturnType<MockAgent['get']>
  run(cmd: Parameters<typeof runCommand>[0], argv: string[]): Promise<RunOutput>
  /** every request that reached the mock: method, path, parsed JSON body, headers */
  calls(): RecordedCall[]
  close(): Promise<void>
}

export async function commandHarness(env: Record<string, string> = {}): Promise<CommandHarness> {
  const isolated = isolate()
  Object.assign(process.env, env)
  const services = mockServices()
  return {
    agent: services.agent,
    calls: services.calls,
    async close() {
      await services.close()
      isolated.cleanup()
    },
    pool: services.agent.get(ORIGIN),
    run: (cmd, argv) => runCommand(cmd, argv),
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

export {ROOT} from './run-command.js'
