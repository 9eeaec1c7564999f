/**
 * The event log a client reads (GET /__sandbox/events) comes from the database, not from one
 * replica's memory: two replicas on one PostgreSQL cluster, the events raised through A are listed
 * through B, so a load balancer in front of them needs no stickiness. (The delivery log is shared
 * the same way: test/e2e/sandbox-replicas.test.ts.)
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {EVENT_LOG_LIMIT, EventLog} from '../../src/sandbox/core/event-log.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {DocTable} from '../../src/sandbox/core/store.js'
import {sandboxControlCall} from '../helpers/control.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'

const skip = postgresSkipReason()
const TOKEN = 'shared-event-log-token'

describe.skipIf(skip !== undefined)(`the event log of two replicas${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: PostgresCluster
  let a: RunningSandbox
  let b: RunningSandbox

  beforeAll(async () => {
    cluster = await startPostgres()
    a = await createSandbox({database: cluster.url, notice: () => undefined, port: 0, token: TOKEN})
    b = await createSandbox({database: cluster.url, notice: () => undefined, port: 0, token: TOKEN})
  }, 60_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await cluster?.stop()
  })

  it('lists through replica B the events of a payment made through replica A, and no other tenant does', async () => {
    const tenant = await sandboxControlCall(a, 'tenants', {})
    const base = `/t/${tenant.id}`
    const create = await fetch(`${a.origin}${base}/checkout/v1/checkouts`, {
      body: JSON.stringify({items: [{name: 'Tea'}], requestReferenceNumber: 'shared-log', totalAmount: {currency: 'PHP', value: '10.00'}}),
      headers: {authorization: basicAuth(tenant.publicKey), 'content-type': 'application/json'},
      method: 'POST',
    })
    const {checkoutId} = (await create.json()) as {checkoutId: string}
    const form = new URLSearchParams({action: 'pay', cardNumber: '5123456789012346', cvc: '123', expiry: '12/30'}).toString()
    const paid = await fetch(`${a.origin}${base}/checkout/pay/${checkoutId}`, {body: form, headers: {'content-type': 'application/x-www-form-urlencoded'}, method: 'POST', redirect: 'manual'})
    await paid.text()
    expect(paid.status).toBeLessThan(400)
    const listed = async (replica: RunningSandbox) => {
      const res = await fetch(`${replica.origin}${base}/__sandbox/events`, {headers: {authorization: `Bearer ${TOKEN}`}})
      return ((await res.json()) as {events: {checkoutId?: string; type: string}[]}).events.filter((e) => e.checkoutId === checkoutId).map((e) => e.type)
    }

    expect(await listed(b)).toEqual(['CHECKOUT_SUCCESS'])
    expect(await listed(b)).toEqual(await listed(a))
    // another tenant sees none of them
    const other = await sandboxControlCall(b, 'tenants', {})
    const res = await fetch(`${b.origin}/t/${other.id}/__sandbox/events`, {headers: {authorization: `Bearer ${TOKEN}`}})
    expect(((await res.json()) as {events: unknown[]}).events).toEqual([])
  })
})

describe('the event log of a tenant', () => {
  it(`keeps the newest ${EVENT_LOG_LIMIT} events, oldest first, and stores not many more`, async () => {
    const sandbox = await createSandbox({notice: () => undefined, port: 0})
    try {
      const handle = sandbox.store.forTenant('default')
      const log = new EventLog(handle)
      const added = 2 * EVENT_LOG_LIMIT + 3
      for (let i = 0; i < added; i++) await log.add({at: new Date(0).toISOString(), checkoutId: `chk_${i}`, payload: {}, type: 'CHECKOUT_SUCCESS'})
      await sandbox.store.commit()
      const ids = (await log.list()).map((event) => event.checkoutId)
      expect(ids.length).toBe(EVENT_LOG_LIMIT)
      expect([ids[0], ids.at(-1)]).toEqual([`chk_${added - EVENT_LOG_LIMIT}`, `chk_${added - 1}`])
      // the older ones are dropped now and then (not at each event): a tenant's log stays bounded
      expect(await new DocTable(handle, 'core.events').count()).toBeLessThanOrEqual(EVENT_LOG_LIMIT + 100)
    } finally {
      await sandbox.close()
    }
  })
})
