/**
 * A tenant deleted while its writes are under way takes none of them: each in-flight write either
 * committed before the deletion (and went with it) or answers 404; no row of the tenant is left
 * behind. On SQLite (one process) and on PostgreSQL with two replicas, the deletion sent to the
 * other replica than the writes. And on PostgreSQL, the replica that did not delete it lets go of
 * what it held open for it.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {TENANT_ACTIVE_SHARE} from '../../src/sandbox/core/tenant-shares.js'
import {LET_GO_AFTER_MS} from '../../src/sandbox/core/tenants.js'
import {controlHeaders} from '../helpers/control.js'
import {bothEngines, type PostgresCluster, startPostgres} from '../helpers/postgres.js'

const TOKEN = 'delete-in-flight-token'
// as many as hold a turn of the tenant at once on PostgreSQL (tenant-shares.ts), leaving one for the control calls
const WRITES = TENANT_ACTIVE_SHARE - 1
/** far longer than a deletion takes, even on a loaded machine */
const DELAY_MS = 8000
const CHECKOUT = JSON.stringify({totalAmount: {value: '1.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'in-flight'})

describe.each(bothEngines())('deleting a tenant with writes in flight, on $engine', ({engine, skip}) => {
  let cluster: PostgresCluster | undefined
  let writer: RunningSandbox
  let deleter: RunningSandbox

  beforeAll(async () => {
    if (skip) return
    if (engine === 'postgres') cluster = await startPostgres()
    writer = await createSandbox({database: cluster?.url, notice: () => undefined, port: 0, token: TOKEN})
    deleter = cluster ? await createSandbox({database: cluster.url, notice: () => undefined, port: 0, token: TOKEN}) : writer
  }, 60_000)
  afterAll(async () => {
    if (deleter !== writer) await deleter?.close()
    await writer?.close()
    await cluster?.stop()
  })

  it.skipIf(skip !== undefined)('answers every write under way during the deletion 404, and leaves no row of the tenant', async () => {
    const created = await fetch(`${writer.origin}/__sandbox/tenants`, {method: 'POST', headers: {...controlHeaders(TOKEN), 'content-type': 'application/json'}, body: '{}'})
    const tenant = (await created.json()) as {id: string; publicKey: string}
    const base = `${writer.origin}/t/${tenant.id}`
    const control = (path: string, init: {body?: string; method?: string} = {}) => fetch(`${base}/__sandbox/${path}`, {...init, headers: {...controlHeaders(TOKEN), 'content-type': 'application/json'}})
    // each write takes a delay fault after its tenant is resolved and its body read: it is under
    // way, holding its tenant, until the deletion has been answered
    const faults = Array.from({length: WRITES}, () => ({kind: 'delay', ms: DELAY_MS, op: 'initiateCheckout'}))
    expect((await control('faults', {body: JSON.stringify({next: faults}), method: 'POST'})).status).toBe(200)
    const writes = Array.from({length: WRITES}, async () => {
      const res = await fetch(`${base}/checkout/v1/checkouts`, {method: 'POST', headers: {authorization: basicAuth(tenant.publicKey), 'content-type': 'application/json'}, body: CHECKOUT})
      await res.text()
      return res.status
    })
    // every fault taken: every write is under way
    for (;;) {
      const {pending} = (await (await control('faults')).json()) as {pending: unknown[]}
      if (pending.length === 0) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }

    const deleted = await fetch(`${deleter.origin}/__sandbox/tenants/${tenant.id}`, {method: 'DELETE', headers: controlHeaders(TOKEN)})
    expect(deleted.status).toBe(200)
    const statuses = await Promise.all(writes)

    expect(statuses.filter((status) => status !== 404)).toEqual([])
    // no row of the tenant is left: none was committed after its deletion
    expect(await writer.store.tenantsWithRows()).not.toContain(tenant.id)
  })

  it.skipIf(skip !== undefined || engine !== 'postgres')('lets go, on the replica that served a tenant, of the tenant the other replica deleted, once it has gone unused', async () => {
    const create = async () => {
      const res = await fetch(`${writer.origin}/__sandbox/tenants`, {method: 'POST', headers: {...controlHeaders(TOKEN), 'content-type': 'application/json'}, body: '{}'})
      return ((await res.json()) as {id: string}).id
    }

    const [gone, kept] = [await create(), await create()]
    const held = () => writer.tenants.opened().map((tenant) => tenant.id)
    expect(held()).toEqual(expect.arrayContaining([gone, kept]))
    expect((await fetch(`${deleter.origin}/__sandbox/tenants/${gone}`, {method: 'DELETE', headers: controlHeaders(TOKEN)})).status).toBe(200)

    // nothing asks the writer for it again: a look now keeps it (a creation under way looks the same)...
    await writer.tenants.removeExpired()
    expect(held()).toContain(gone)
    // ...and a look once it has gone unused long enough lets go of it, not of a tenant still registered
    await writer.tenants.removeExpired(Date.now() + LET_GO_AFTER_MS)
    expect(held()).not.toContain(gone)
    expect(held()).toContain(kept)
    expect((await fetch(`${writer.origin}/t/${gone}/checkout/v1/webhooks`, {headers: {authorization: basicAuth('pk-any')}})).status).toBe(404)
  })
})
