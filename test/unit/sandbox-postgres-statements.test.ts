/**
 * What a request costs PostgreSQL: the statements a replica sends for each kind of request of a
 * tenant (a checkout read, creation, hosted-page payment and refund; a health event added and
 * listed by a signed-in user), counted by wrapping pg's
 * `Client.query` on a throwaway cluster: each call is one round trip, whether a multi-statement text
 * (BEGIN with the tenant's lock) or a prepared statement (pg writes its Parse, Bind, Execute and Sync
 * at once, then waits for the one answer), and counts once. Counts are not timings: they hold on a loaded machine.
 * The background look for due work (every second, whatever the requests: expired tenants, due
 * webhook deliveries) is not a request's, nor is the claim of a delivery after a commit: both are
 * left out, the look by the async context it runs in (a look that lands while a request is counted
 * would otherwise count as the request's), the claim by its statement. Each statement a
 * request sends also runs one prepared on its connection (pg's named statements, or `PREPARE` and
 * `EXECUTE` within a batch): none carries its values in its text for PostgreSQL to parse and plan anew.
 */
import {AsyncLocalStorage} from 'node:async_hooks'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {DueDeliveries} from '../../src/sandbox/core/due-deliveries.js'
import {queriesFor} from '../../src/sandbox/core/queries.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {sandboxControlCall} from '../helpers/control.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'

const skip = postgresSkipReason()
const Q = queriesFor('postgres')
/** statements of the deliveries' own work, not of the request that raised them */
const BACKGROUND = new Set([Q.claimDue, Q.claimDelivery, Q.renewClaim, Q.deleteDelivery, Q.rescheduleDelivery])
/** Set while the background look for due work runs: what it sends is not a request's. */
const inBackgroundLook = new AsyncLocalStorage<true>()
type Look = (this: DueDeliveries, ...args: unknown[]) => Promise<void>
const lookForDueWork = (DueDeliveries.prototype as unknown as {claimUnheld: Look}).claimUnheld
const V = {'x-ph-api-version': '3.14.0'}
/** a statement of a batch that runs one prepared on its connection (or prepares it, once a connection), or one without values */
const PREPARED_OR_PLAIN = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT \w+|RELEASE SAVEPOINT \w+|PREPARE \w+ AS .*|EXECUTE \w+\(.*\))$/s

describe.skipIf(skip !== undefined)(`statements per request on PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: PostgresCluster
  let sandbox: RunningSandbox
  const sent: string[] = []
  /** statements PostgreSQL parsed and planned with their values in them, rather than running a statement prepared on the connection */
  const parsed: string[] = []
  let counting = true
  const query = pg.Client.prototype.query

  beforeAll(async () => {
    ;(DueDeliveries.prototype as unknown as {claimUnheld: Look}).claimUnheld = function (...args) {
      return inBackgroundLook.run(true, () => lookForDueWork.apply(this, args))
    }

    cluster = await startPostgres()
    sandbox = await createSandbox({database: cluster.url, notice: () => undefined, port: 0, token: 'statements-token'})
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as {text?: string})?.text
      if (counting && text !== undefined && !BACKGROUND.has(text) && !inBackgroundLook.getStore()) {
        sent.push(text)
        if ((args[0] as {name?: string}).name === undefined)
          parsed.push(...text.split(';\n').filter((part) => !PREPARED_OR_PLAIN.test(part)))
      }

      return (query as (...a: unknown[]) => unknown).apply(this, args)
    } as typeof query
  }, 60_000)
  afterAll(async () => {
    ;(DueDeliveries.prototype as unknown as {claimUnheld: Look}).claimUnheld = lookForDueWork
    pg.Client.prototype.query = query
    await sandbox?.close()
    await cluster?.stop()
  })

  /** A count of the test's own, on a connection of its own: its statements are not counted. */
  async function uncounted(text: string, values: unknown[]): Promise<number> {
    counting = false
    const client = new pg.Client({connectionString: cluster.url})
    await client.connect()
    try {
      return Number((await client.query(text, values)).rows[0].n)
    } finally {
      await client.end()
      counting = true
    }
  }

  /** Waits until no work of the tenant is left to run. */
  async function dueWorkDone(tenant: string): Promise<void> {
    while ((await uncounted('SELECT count(*) AS n FROM deliveries WHERE tenant = $1', [tenant])) > 0)
      await new Promise((resolve) => setTimeout(resolve, 50))
  }

  /** The rows of due work (jobs, deliveries) of a tenant that name a checkout. */
  const dueWorkOf = (tenant: string, checkoutId: string) =>
    uncounted(`SELECT count(*) AS n FROM deliveries WHERE tenant = $1 AND doc LIKE '%' || $2 || '%'`, [tenant, checkoutId])

  /** The statements one request sent, from its start to its answer. */
  async function counted(path: string, init: Parameters<typeof fetch>[1]): Promise<{statements: string[]; body: any}> {
    sent.length = 0
    parsed.length = 0
    const res = await fetch(sandbox.origin + path, init)
    const text = await res.text()
    expect(res.status, text).toBeLessThan(400)
    const statements = [...sent]
    expect(parsed, 'statements with their values in their text: PostgreSQL parses and plans each anew').toEqual([])
    return {body: text.startsWith('{') ? JSON.parse(text) : text, statements}
  }

  it('reads a checkout in 1 round trip, and creates, pays (hosted page) or refunds a checkout in 2 (its tenant open on the replica)', async () => {
    const tenant = await sandboxControlCall(sandbox, 'tenants', {})
    const base = `/t/${tenant.id}`
    const json = (key: string, body?: unknown) => ({
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: {...V, authorization: basicAuth(key), ...(body === undefined ? {} : {'content-type': 'application/json'})},
      method: body === undefined ? 'GET' : 'POST',
    })
    const checkout = {items: [{name: 'Tea'}], requestReferenceNumber: 'statements', totalAmount: {currency: 'PHP', value: '10.00'}}
    // the first request of a tenant opens its runtime; the counts are those of the requests after it
    const first = await counted(`${base}/checkout/v1/checkouts`, json(tenant.publicKey, checkout))
    const created = await counted(`${base}/checkout/v1/checkouts`, json(tenant.publicKey, checkout))
    const id = created.body.checkoutId as string
    const read = await counted(`${base}/checkout/v1/checkouts/${id}`, json(tenant.secretKey))
    const form = new URLSearchParams({action: 'pay', cardNumber: '5123456789012346', cvc: '123', expiry: '12/30'}).toString()
    const paid = await counted(`${base}/checkout/pay/${id}`, {
      body: form,
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      method: 'POST',
      redirect: 'manual',
    })
    // paid, it can no longer expire: its expiry job went with the payment (no job runs for it later),
    // while the unpaid one's stays
    expect([await dueWorkOf(tenant.id, id), await dueWorkOf(tenant.id, first.body.checkoutId)]).toEqual([0, 1])
    // refunds open the day after a payment; the checkout's expiry job falls due on the way, and
    // runs in the background: the refund is counted once it has run
    await fetch(`${sandbox.origin}${base}/__sandbox/clock`, {
      body: JSON.stringify({advance: '26h'}),
      headers: {authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json'},
      method: 'POST',
    })
    await dueWorkDone(tenant.id)
    const refunded = await counted(
      `${base}/checkout/v1/checkouts/${id}/refunds`,
      json(tenant.secretKey, {amount: {currency: 'PHP', value: '10.00'}, reason: 'statements'}),
    )
    const counts = {
      created: created.statements.length,
      paid: paid.statements.length,
      read: read.statements.length,
      refunded: refunded.statements.length,
    }
    const sentTexts = Object.entries({created, paid, read, refunded}).map(([kind, r]) => `${kind}:\n  ${r.statements.join('\n  ')}`)
    expect(counts, sentTexts.join('\n')).toEqual({created: 2, paid: 2, read: 1, refunded: 2})
  })

  it("lists a signed-in user's events in 2 round trips and adds one in 2 (its session and user read with the tenant's rows)", async () => {
    const tenant = await sandboxControlCall(sandbox, 'tenants', {})
    const base = `${sandbox.origin}/t/${tenant.id}/api`
    const user = {
      email: 'statements@example.com',
      familyName: 'Count',
      givenName: 'Stat',
      password: 'statements-pass-1',
      role: 'patient',
      timeZone: 'Asia/Manila',
    }
    const signedUp = await fetch(`${base}/users`, {
      body: JSON.stringify(user),
      headers: {...V, 'content-type': 'application/json'},
      method: 'POST',
    })
    expect(signedUp.status).toBe(201)
    const session = {...V, cookie: String(signedUp.headers.get('set-cookie')).split(';')[0]}
    const event = {date: '2026-01-02T03:04:05.000Z', medicationId: 'med-salbutamol', medicationType: 'rescue', source: 'manual'}
    const added = await counted(`/t/${tenant.id}/api/users/me/events`, {
      body: JSON.stringify(event),
      headers: {...session, 'content-type': 'application/json'},
      method: 'POST',
    })
    const listed = await counted(`/t/${tenant.id}/api/users/me/events`, {headers: session})
    expect(listed.body.events.map((e: {id: string}) => e.id)).toEqual([added.body.id])
    const counts = {added: added.statements.length, listed: listed.statements.length}
    expect(counts, [...added.statements, '--', ...listed.statements].join('\n')).toEqual({added: 2, listed: 2})
  })
})
