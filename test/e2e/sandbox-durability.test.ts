/**
 * kill -9 of a real `opsctl sandbox start --state FILE` at random moments during bursts of
 * writes (creates, payments on the hosted page, voids, refunds), a few at a time. After each
 * kill the database passes SQLite's integrity check, the sandbox restarts on the same file, nothing
 * but the database and its WAL is beside it, and every write the sandbox answered before it died
 * is there.
 *
 * Starting the CLI is most of the cost (one to several seconds on a loaded machine), so only the
 * process that is killed is a real one: the restarts that check, and the setup, run createSandbox
 * in this process. The 20 kills are ten chains of two, each on its own state file and a test of
 * its own, so each stays far from the test timeout.
 */
import {existsSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {request} from 'undici'
import {afterAll, describe, expect, it} from 'vitest'

import {SCHEMA_VERSION} from '../../src/sandbox/core/schema.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {firstValue, openDatabase} from '../helpers/sqlite.js'
import {type Sandbox, startSandbox} from './harness.js'

const CHAINS = 10
const KILLS_PER_CHAIN = 2
const LANES = 4
const DAY = 86_400_000
/** 09:00 in Manila: a payment can be voided for the rest of its day. Each kill is one day later, so older payments can be refunded. */
const FIRST_DAY = Date.parse('2026-11-23T01:00:00Z')
const CARD = new URLSearchParams({action: 'pay', cardNumber: '5123456789012346', cvc: '123', expiry: '12/30'}).toString()

interface Tracked {
  id: string
  amount: string
  /** the day of its last write */
  day: number
  /** Payment statuses it may show: the one its last answered write set, plus the target of a write sent and never answered. */
  expected: Set<string>
  /** refund ids answered SUCCESS */
  refunds: string[]
}

type Write = 'create' | 'pay' | 'refund' | 'void'
type Answered = Record<Write, number>

const TARGET: Record<Write, string> = {create: 'PENDING_PAYMENT', pay: 'PAYMENT_SUCCESS', refund: 'REFUNDED', void: 'VOIDED'}
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`
const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))

/**
 * Restarts the sandbox on the file, in this process (the same createSandbox the CLI runs): it
 * opens, nothing but the database and its WAL is beside it, and every tracked checkout is there with a status it
 * may have and its answered refunds. `prepare` may write more before it is closed.
 */
async function restart(stateFile: string, day: number, which: readonly Tracked[], prepare?: (sb: RunningSandbox) => Promise<void>) {
  const sb = await createSandbox({port: 0, stateFile, clock: new Date(FIRST_DAY + day * DAY).toISOString()})
  try {
    const own = new Set([basename(stateFile), `${basename(stateFile)}-wal`])
    expect(readdirSync(dirname(stateFile)).filter((name) => !own.has(name))).toEqual([])
    expect(existsSync(stateFile)).toBe(true)
    const auth = {authorization: basic(SANDBOX_KEYS.secretKey)}
    for (const checkout of which) {
      const res = await sb.app.inject({url: `/checkout/v1/checkouts/${checkout.id}`, headers: auth})
      expect([checkout.id, res.statusCode]).toEqual([checkout.id, 200])
      expect([...checkout.expected], `${checkout.id} (written on day ${checkout.day})`).toContain(res.json().paymentStatus)
      if (checkout.refunds.length === 0) continue
      const refunds = (await sb.app.inject({url: `/checkout/v1/checkouts/${checkout.id}/refunds`, headers: auth})).json()
      expect(refunds.filter((r: {status: string}) => r.status === 'SUCCESS').map((r: {id: string}) => r.id)).toEqual(
        expect.arrayContaining(checkout.refunds),
      )
    }

    await prepare?.(sb)
  } finally {
    await sb.close()
  }
}

/** Day 0, in this process: a few paid checkouts, which the bursts of later days can refund. */
function paidOnDayZero(tracked: Tracked[]): (sb: RunningSandbox) => Promise<void> {
  return async (sb) => {
    for (let i = 0; i < LANES; i++) {
      const amount = `${randomInt(1, 900)}.00`
      const created = await sb.app.inject({
        method: 'POST',
        url: '/checkout/v1/checkouts',
        headers: {authorization: basic(SANDBOX_KEYS.publicKey)},
        payload: {totalAmount: {value: amount, currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'DAY-0'},
      })
      const id = created.json().checkoutId
      const paid = await sb.app.inject({
        method: 'POST',
        url: `/checkout/pay/${id}`,
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        payload: CARD,
      })
      expect(paid.statusCode).toBe(200)
      tracked.push({id, amount, day: 0, expected: new Set([TARGET.pay]), refunds: []})
    }
  }
}

/**
 * One burst: LANES loops of writes (create, pay, sometimes void; or a full refund of a payment of
 * an earlier day), each write sent once its previous one was answered. Lane 0 refunds first
 * when it can and lane 1 always voids. The sandbox gets SIGKILL the moment the `killAfter`-th
 * answer arrives (once the chain has seen a void and a refund answered), with the other lanes'
 * writes in flight.
 */
async function burst(sandbox: Sandbox, tracked: Tracked[], day: number, answered: Answered): Promise<void> {
  const killAfter = randomInt(6, 24)
  const life = {answers: 0, killed: false}
  const {origin, publicKey, secretKey} = sandbox

  function acknowledge(kind: Write, checkout: Tracked): Tracked {
    checkout.expected = new Set(kind === 'create' ? [TARGET.create, 'PAYMENT_EXPIRED'] : [TARGET[kind]])
    answered[kind]++
    if (++life.answers >= killAfter && answered.void > 0 && answered.refund > 0 && !life.killed) {
      life.killed = true
      sandbox.process.kill('SIGKILL')
    }

    return checkout
  }

  async function create(): Promise<Tracked> {
    const amount = `${randomInt(1, 900)}.00`
    const res = await request(`${origin}/checkout/v1/checkouts`, {
      method: 'POST',
      headers: {authorization: basic(publicKey), 'content-type': 'application/json'},
      body: JSON.stringify({
        totalAmount: {value: amount, currency: 'PHP'},
        items: [{name: 'Tea', quantity: '1'}],
        requestReferenceNumber: `KILL-${day}`,
        redirectUrl: {success: 'https://shop.example/ok'},
      }),
    })
    const body = (await res.body.json()) as {checkoutId: string}
    expect(res.statusCode).toBe(200)
    const checkout: Tracked = {id: body.checkoutId, amount, day, expected: new Set(), refunds: []}
    tracked.push(checkout)
    return acknowledge('create', checkout)
  }

  async function change(kind: Exclude<Write, 'create'>, checkout: Tracked): Promise<Tracked> {
    checkout.day = day
    checkout.expected.add(TARGET[kind])
    if (kind === 'pay') {
      const res = await request(`${origin}/checkout/pay/${checkout.id}`, {
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        body: CARD,
      })
      await res.body.dump()
      expect(res.statusCode).toBe(303)
    } else if (kind === 'void') {
      const res = await request(`${origin}/checkout/v1/checkouts/${checkout.id}`, {
        method: 'DELETE',
        headers: {authorization: basic(secretKey), 'content-type': 'application/json'},
        body: JSON.stringify({reason: 'kill -9 test'}),
      })
      expect(await res.body.json()).toMatchObject({voidStatus: 'SUCCESS'})
    } else {
      const res = await request(`${origin}/checkout/v1/checkouts/${checkout.id}/refunds`, {
        method: 'POST',
        headers: {authorization: basic(secretKey), 'content-type': 'application/json'},
        body: JSON.stringify({reason: 'kill -9 test', amount: {value: checkout.amount, currency: 'PHP'}}),
      })
      const body = (await res.body.json()) as {refundId: string; status: string}
      expect(body.status).toBe('SUCCESS')
      checkout.refunds.push(body.refundId)
    }

    return acknowledge(kind, checkout)
  }

  async function lane(n: number): Promise<void> {
    for (let first = true; !life.killed; first = false) {
      // paid on an earlier day (so past its void window), and known to be paid: not one whose last write went unanswered
      const refundable = tracked.find((c) => c.day < day && c.expected.size === 1 && c.expected.has(TARGET.pay))
      if (refundable && ((n === 0 && first) || Math.random() < 0.3)) {
        await change('refund', refundable)
      } else {
        const checkout = await create()
        await change('pay', checkout)
        if (n === 1 || Math.random() < 0.3) await change('void', checkout)
      }
    }
  }

  const exited = new Promise((resolve) => sandbox.process.once('exit', resolve))
  try {
    await Promise.all(
      Array.from({length: LANES}, (_, n) =>
        lane(n).catch((error: unknown) => {
          // a write cut by the kill is expected; a wrong answer is not
          if (!life.killed || (error instanceof Error && error.name === 'AssertionError')) throw error
        }),
      ),
    )
  } finally {
    if (!life.killed) sandbox.process.kill('SIGKILL')
  }

  await exited
}

/** The database a killed sandbox left opens cleanly (its WAL recovered) and passes SQLite's integrity check. */
function expectSound(stateFile: string): void {
  expect(existsSync(stateFile)).toBe(true)
  const db = openDatabase(stateFile)
  try {
    expect(firstValue(db, 'PRAGMA integrity_check')).toBe('ok')
    expect(firstValue(db, 'PRAGMA user_version')).toBe(SCHEMA_VERSION)
  } finally {
    db.close()
  }
}

/**
 * One state file: paid checkouts on day 0, then on each following day a real sandbox process,
 * a burst, a kill, and a restart that checks what was answered.
 */
async function chain(kills: number, started: Set<Sandbox>): Promise<Answered> {
  const answered: Answered = {create: 0, pay: 0, refund: 0, void: 0}
  const dir = mkdtempSync(join(tmpdir(), 'opsctl-kill9-'))
  const stateFile = join(dir, 'state.db')
  const tracked: Tracked[] = []
  try {
    await restart(stateFile, 0, [], paidOnDayZero(tracked))
    for (let day = 1; day <= kills; day++) {
      const sandbox = await startSandbox(['--state', stateFile, '--clock', new Date(FIRST_DAY + day * DAY).toISOString()])
      started.add(sandbox)
      await burst(sandbox, tracked, day, answered)
      started.delete(sandbox)
      expectSound(stateFile)
      await restart(stateFile, day, day === kills ? tracked : tracked.filter((c) => c.day === day))
    }
  } finally {
    rmSync(dir, {force: true, recursive: true})
  }

  return answered
}

describe('sandbox --state under kill -9', () => {
  const started = new Set<Sandbox>()
  afterAll(async () => {
    await Promise.all([...started].map((s) => s.stop('SIGKILL')))
  })

  for (let n = 1; n <= CHAINS; n++) {
    it(`chain ${n} of ${CHAINS}: keeps every answered create, payment, void and refund across ${KILLS_PER_CHAIN} kills at random moments`, async () => {
      const answered = await chain(KILLS_PER_CHAIN, started)
      expect(answered.create).toBeGreaterThanOrEqual(KILLS_PER_CHAIN)
      expect(answered.pay).toBeGreaterThanOrEqual(KILLS_PER_CHAIN)
      expect(answered.void).toBeGreaterThan(0)
      expect(answered.refund).toBeGreaterThan(0)
    })
  }
})
