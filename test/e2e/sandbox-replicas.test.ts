/**
 * Two real `opsctl sandbox start --database postgres://...` processes on one throwaway PostgreSQL
 * cluster: what one acknowledges, the other serves; the money rules hold across them; a replica
 * killed with SIGKILL loses nothing it answered; a webhook due when its replica dies is delivered
 * by the other, once. Skipped (with the reason) only where PostgreSQL's binaries are absent outside CI.
 */
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'
import {runCli, type Sandbox, startSandbox} from './harness.js'

const skip = postgresSkipReason()
const TOKEN = 'replica-test-control-token'
const CARD = new URLSearchParams({action: 'pay', cardNumber: '5123456789012346', cvc: '123', expiry: '12/30'}).toString()
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`

async function call(origin: string, path: string, options: {method?: string; key?: string; json?: unknown} = {}) {
  const res = await request(`${origin}${path}`, {
    method: (options.method ?? 'GET') as 'GET',
    headers: {
      ...(options.key ? {authorization: basic(options.key)} : {}),
      ...(options.json === undefined ? {} : {'content-type': 'application/json'}),
    },
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  })
  const text = await res.body.text()
  return {status: res.statusCode, body: text ? JSON.parse(text) : undefined}
}

async function createCheckout(origin: string, amount = '100.00'): Promise<string> {
  const created = await call(origin, '/checkout/v1/checkouts', {
    method: 'POST',
    key: SANDBOX_KEYS.publicKey,
    json: {totalAmount: {value: amount, currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'REPLICAS', redirectUrl: {success: 'https://shop.example/ok'}},
  })
  expect(created.status).toBe(200)
  return created.body.checkoutId
}

async function pay(origin: string, id: string): Promise<void> {
  const res = await request(`${origin}/checkout/pay/${id}`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: CARD})
  await res.body.dump()
  expect(res.statusCode).toBe(303)
}

describe.skipIf(skip !== undefined)(`two sandbox replicas on one PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let pg: PostgresCluster
  const replicas: Sandbox[] = []
  const start = async () => {
    const replica = await startSandbox([], {OPSCTL_SANDBOX_DATABASE: pg.url, OPSCTL_SANDBOX_TOKEN: TOKEN})
    replicas.push(replica)
    return replica
  }

  beforeAll(async () => {
    pg = await startPostgres()
    // one after the other: the first creates the schema and the default tenant's fresh state
    await start()
    await start()
  })

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()))
    await pg?.stop()
  })

  it('serves through one replica what the other acknowledged: a checkout created on A is read, paid and voided on B', async () => {
    const [a, b] = replicas
    const id = await createCheckout(a.origin)
    expect((await call(b.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})).body).toMatchObject({id, paymentStatus: 'PENDING_PAYMENT'})
    await pay(b.origin, id)
    expect((await call(a.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})).body.paymentStatus).toBe('PAYMENT_SUCCESS')
    const voided = await call(b.origin, `/checkout/v1/checkouts/${id}`, {method: 'DELETE', key: SANDBOX_KEYS.secretKey, json: {reason: 'replicas'}})
    expect(voided.body).toMatchObject({voidStatus: 'SUCCESS'})
    expect((await call(a.origin, `/checkout/v1/checkouts/${id}`, {key: SANDBOX_KEYS.secretKey})).body.paymentStatus).toBe('VOIDED')
    // the password of the database URL is never printed
    expect(a.stderr() + b.stderr()).not.toContain('sandbox-test-password')
  })

  it('gives exactly one refund for 10 concurrent full refunds of one checkout spread over both replicas', async () => {
    const [a, b] = replicas
    const id = await createCheckout(a.origin, '250.00')
    await pay(a.origin, id)
    // past the day of the payment: a refund, not a void
    await a.control('/clock', {advance: '48h'})
    // every refund waits a moment before its rule runs, so that all ten are under way together
    for (const replica of [a, b]) await replica.control('/faults', {next: Array.from({length: 5}, () => ({op: 'refundCheckout', kind: 'delay', ms: 200}))})
    const answers = await Promise.all(
      Array.from({length: 10}, (_, i) =>
        call((i % 2 === 0 ? a : b).origin, `/checkout/v1/checkouts/${id}/refunds`, {
          method: 'POST',
          key: SANDBOX_KEYS.secretKey,
          json: {reason: `race ${i}`, amount: {value: '250.00', currency: 'PHP'}},
        }),
      ),
    )
    const succeeded = answers.filter((r) => r.status === 200 && r.body.status === 'SUCCESS')
    expect(succeeded).toHaveLength(1)
    for (const refused of answers.filter((r) => !(r.status === 200 && r.body.status === 'SUCCESS'))) expect(refused.status).toBe(400)
    const refunds = await call(b.origin, `/checkout/v1/checkouts/${id}/refunds`, {key: SANDBOX_KEYS.secretKey})
    expect(refunds.body.filter((r: {status: string}) => r.status === 'SUCCESS')).toHaveLength(1)
  })

  it('moves the clock of every replica: advanced through one, the other answers with the new date', async () => {
    const [a, b] = replicas
    const moved = await b.control('/clock', {advance: '24h'})
    const seenByA = await a.control('/clock')
    expect(Date.parse(seenByA.now) - Date.parse(moved.now)).toBeLessThan(60_000)
    expect(Date.parse(seenByA.now)).toBeGreaterThan(Date.now() + 23 * 3_600_000)
  })

  it('runs smoke against a tenant through each replica (sandbox tenant create --save-profile, then smoke -p)', async () => {
    for (const replica of replicas) {
      const configDir = replica.configDir
      const env = {OPSCTL_CONFIG_DIR: configDir, OPSCTL_SANDBOX_TOKEN: TOKEN}
      const created = await runCli(['sandbox', 'tenant', 'create', '--sandbox-url', replica.origin, '--save-profile', 'team', '--json'], {env})
      expect(created.code, created.stderr).toBe(0)
      const smoke = await runCli(['smoke', '-p', 'team'], {env})
      expect(smoke.code, smoke.stdout + smoke.stderr).toBe(0)
    }
  })
})
