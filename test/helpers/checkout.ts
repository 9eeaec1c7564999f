/** Fixtures for command tests of the checkout commands (the harness is ./command.ts). */
import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {runJson} from './command.js'

export const BASE = '/checkout/v1'
export const JSON_HEADERS = {'content-type': 'application/json', 'x-request-id': 'req-123'}
export const SECRETS = [SANDBOX_KEYS.publicKey, SANDBOX_KEYS.secretKey]

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

/** A checkout created and paid (a successful payment) in-process, against whatever sandbox the environment points at; its id. */
export async function paidCheckout(amount: string, card = '5123456789012346'): Promise<string> {
  const {checkoutId} = await runJson(CheckoutCreate, ['--amount', amount, '--success-url', 'https://shop.example/ok'])
  const paid = await runJson(CheckoutPay, [checkoutId, '--card', card])
  if (paid.paymentStatus !== 'PAYMENT_SUCCESS') throw new Error(`checkout ${checkoutId} was not paid: ${paid.paymentStatus}`)
  return checkoutId
}
