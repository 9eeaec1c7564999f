/**
 * The pieces of the access log and of `checkout list`'s live states that the e2e tests do not
 * reach one by one: which raw paths are reads of a user's health data, the reason rule, a secret
 * typed into a reason, the service's words for a checkout, and the bound on reads at once.
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import type {CheckoutSummary} from '../../src/audit/history.js'
import type {ResolvedProfile} from '../../src/profiles/resolve.js'
import type {CheckoutRecord} from '../../src/services/checkout/operations.js'

import {appendAccess} from '../../src/audit/access.js'
import {healthReadOf, reasonFor} from '../../src/cli/health/access.js'
import {forgetSecrets, registerSecret} from '../../src/http/secrets/registry.js'
import {withServiceStates} from '../../src/runtime/checkout/live-states.js'
import {serviceState} from '../../src/services/checkout/checkout-state.js'
import {checkoutRecord} from '../helpers/checkout.js'

describe('raw health reads (api health GET)', () => {
  it("names the user read and the path's template; anything else is not a read of a user's data", () => {
    expect(healthReadOf('/api/users/u-1')).toEqual({template: '/api/users/{userId}', userId: 'u-1'})
    expect(healthReadOf('/api/users/u-1/events?startDate=2026-01-01')).toEqual({template: '/api/users/{userId}/events', userId: 'u-1'})
    expect(healthReadOf('/api/users/u-1/events/e-9')).toEqual({template: '/api/users/{userId}/events/{eventId}', userId: 'u-1'})
    expect(healthReadOf('/api/users/u%2D1/metrics/')).toEqual({template: '/api/users/{userId}/metrics', userId: 'u-1'})
    expect(healthReadOf('/api/users/me')?.userId).toBe('me')
    for (const path of ['/api/groups/demo/config', '/api/users', '/api/users/u-1/plan/medication', '/v1/checkouts/u-1']) expect(healthReadOf(path)).toBeUndefined()
  })
})

describe('the reason', () => {
  const resolved = (env: 'production' | 'sandbox'): ResolvedProfile =>
    ({name: 'live', profile: {env, health: {userId: 'u-me'}}, fromEnv: []}) as unknown as ResolvedProfile
  const ctx = (env: 'production' | 'sandbox', reason?: string) => ({command: 'users get', configDir: '/nonexistent', dryRun: false, reason, resolved: resolved(env)})

  it('is needed on production for anyone but the signed-in user, and refused when empty', async () => {
    // CI=true in tests: no terminal to ask in
    await expect(reasonFor(ctx('production'), 'u-2')).rejects.toMatchObject({exitCode: 2})
    await expect(reasonFor(ctx('production'), 'ana@example.com')).rejects.toMatchObject({exitCode: 2})
    await expect(reasonFor(ctx('production'), 'me')).resolves.toBeUndefined()
    await expect(reasonFor(ctx('production'), 'u-me')).resolves.toBeUndefined()
    await expect(reasonFor(ctx('production', ' ticket 9 '), 'u-2')).resolves.toBe('ticket 9')
    await expect(reasonFor(ctx('sandbox'), 'u-2')).resolves.toBeUndefined()
    await expect(reasonFor(ctx('sandbox', '  '), 'u-2')).rejects.toMatchObject({exitCode: 2, message: '--reason must not be empty; nothing was sent'})
  })
})

describe('an access line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opsctl-access-'))
  afterEach(() => forgetSecrets())

  it('is scrubbed of a secret pasted into the reason', async () => {
    registerSecret('sk-live-0123456789abcdef')
    await appendAccess(dir, {time: '2026-11-21T00:00:00.000Z', profile: 'live', env: 'production', signedInUser: 'u-me', user: 'u-2', command: 'users get', reason: 'key sk-live-0123456789abcdef leaked?'})
    const text = readFileSync(join(dir, 'access.jsonl'), 'utf8')
    expect(text).not.toContain('sk-live-0123456789abcdef')
    expect(JSON.parse(text).user).toBe('u-2')
    rmSync(dir, {force: true, recursive: true})
  })
})

describe("a checkout's state in the service's words", () => {
  it('paid, declined, expired, cancelled, pending, voided, refunded <amount>', () => {
    const state = (overrides: Record<string, unknown>) => serviceState(checkoutRecord(overrides) as CheckoutRecord).state
    expect(state({})).toBe('paid')
    expect(state({paymentStatus: 'PAYMENT_FAILED'})).toBe('declined')
    expect(state({status: 'EXPIRED', paymentStatus: 'PAYMENT_EXPIRED'})).toBe('expired')
    expect(state({paymentStatus: 'PAYMENT_CANCELLED'})).toBe('cancelled')
    expect(state({status: 'CREATED', paymentStatus: 'PENDING_PAYMENT'})).toBe('pending')
    expect(state({paymentStatus: 'VOIDED'})).toBe('voided')
    expect(state({refundedAmount: '10.00'})).toBe('refunded 10.00')
    expect(state({paymentStatus: 'REFUNDED', refundedAmount: undefined})).toBe('refunded 1500.00')
    expect(state({paymentStatus: 'SOMETHING_NEW'})).toBe('something_new')
  })
})

describe('reading the states', () => {
  it('reads at most four at a time, every row once, in the order shown', async () => {
    const rows = Array.from({length: 10}, (_, i) => ({checkoutId: `chk_${i}`, state: 'created', source: 'local'}) as CheckoutSummary)
    let inFlight = 0
    let most = 0
    const waiting: (() => void)[] = []
    const read: string[] = []
    const client = {
      async call(_op: unknown, {params}: {params: {checkoutId: string}}) {
        inFlight++
        most = Math.max(most, inFlight)
        read.push(params.checkoutId)
        await new Promise<void>((resolve) => waiting.push(resolve))
        inFlight--
        return {data: checkoutRecord({id: params.checkoutId})}
      },
    }
    const state = {done: false}
    const result = withServiceStates(client as never, rows).finally(() => {
      state.done = true
    })
    // Answer one read each turn of the event loop until all are answered.
    while (!state.done) {
      await new Promise((resolve) => setImmediate(resolve))
      waiting.shift()?.()
    }

    const {checkouts, missing} = await result
    expect(most).toBe(4)
    expect(read.sort()).toEqual(rows.map((r) => r.checkoutId).sort())
    expect(checkouts.map((c) => [c.checkoutId, c.state, c.source])).toEqual(rows.map((r) => [r.checkoutId, 'paid', 'service']))
    expect(missing).toEqual([])
  })
})
