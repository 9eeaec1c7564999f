/**
 * A tenant deleted while its writes are under way takes none of them: each in-flight write either
 * committed before the deletion (and went with it) or answers 404; no row of the tenant is left
 * behind. On SQLite (one process) and on PostgreSQL with two replicas, the deletion sent to the
 * other replica than the writes.
 */
import {request as httpRequest} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {controlHeaders} from '../helpers/control.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'

const skipPostgres = postgresSkipReason()
const TOKEN = 'delete-in-flight-token'
const WRITES = 40
const CHECKOUT = JSON.stringify({totalAmount: {value: '1.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'in-flight'})

describe.each([
  {engine: 'sqlite', skip: undefined},
  {engine: 'postgres', skip: skipPostgres},
])('deleting a tenant with writes in flight, on $engine', ({engine, skip}) => {
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

  it.skipIf(skip !== undefined)('answers every write whose body arrives after the deletion 404, and leaves no row of the tenant', async () => {
    const created = await fetch(`${writer.origin}/__sandbox/tenants`, {method: 'POST', headers: {...controlHeaders(TOKEN), 'content-type': 'application/json'}, body: '{}'})
    const tenant = (await created.json()) as {id: string; publicKey: string}
    const path = `/t/${tenant.id}/checkout/v1/checkouts`
    const headers = {authorization: basicAuth(tenant.publicKey), 'content-length': String(Buffer.byteLength(CHECKOUT)), 'content-type': 'application/json'}

    // writes under way: their headers are in (the tenant is resolved), their bodies not yet
    const pending = Array.from({length: WRITES}, () => {
      const req = httpRequest(`${writer.origin}${path}`, {agent: false, headers, method: 'POST'})
      req.flushHeaders()
      const status = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        })
        req.on('error', reject)
      })
      return {req, status}
    })
    // one whole write after them: answered, so the sandbox has read the headers sent before it
    const before = await fetch(`${writer.origin}${path}`, {method: 'POST', headers, body: CHECKOUT})
    expect(before.status).toBe(200)

    const deleted = await fetch(`${deleter.origin}/__sandbox/tenants/${tenant.id}`, {method: 'DELETE', headers: controlHeaders(TOKEN)})
    expect(deleted.status).toBe(200)
    for (const {req} of pending) req.end(CHECKOUT)
    const statuses = await Promise.all(pending.map(({status}) => status))

    expect(statuses.filter((status) => status !== 404)).toEqual([])
    // no row of the tenant is left: none was committed after its deletion
    expect(await writer.store.tenantsWithRows()).not.toContain(tenant.id)
  })
})
