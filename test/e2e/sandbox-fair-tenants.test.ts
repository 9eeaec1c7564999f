/**
 * Fair tenants on PostgreSQL (a throwaway cluster, a real `sandbox start --database` process):
 * while tenant A floods the replica with 400 concurrent writes holding only its public key, A's
 * requests past its share are 429 with Retry-After, tenant B's write is answered while A's line
 * is still full, and no request of either is a 500.
 *
 * How B's latency is asserted on a loaded machine: by order, not by a clock. B is sent once A's
 * line is full (A's first 429 came back); A's writes in that line run one at a time (its tenant
 * lock), so B, which waits in no line of A's, is answered before A's flood ends, whatever the
 * machine's speed. Before the shares, B waited in the pool's one line behind A's writes. The time
 * B took is in the assertion's message.
 */
import {Agent, request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {TENANT_ACTIVE_SHARE} from '../../src/sandbox/core/tenant-shares.js'
import {controlHeaders} from '../helpers/control.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'
import {type Sandbox, startSandbox} from './harness.js'

const skip = postgresSkipReason()
const FLOOD = 400
const CHECKOUT = JSON.stringify({totalAmount: {value: '1.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'flood'})

interface Answer {
  status: number
  retryAfter?: string
  /** its place in the order answers arrived */
  order: number
}

describe.skipIf(skip !== undefined)(`fair tenants on PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: PostgresCluster
  let sb: Sandbox
  // one connection per request: the flood is 400 clients, not 400 requests on a few sockets
  const agent = new Agent({connections: FLOOD + 10, pipelining: 0})

  beforeAll(async () => {
    cluster = await startPostgres()
    sb = await startSandbox([], {OPSCTL_SANDBOX_DATABASE: cluster.url})
  }, 60_000)
  afterAll(async () => {
    await agent.close()
    await sb?.stop()
    await cluster?.stop()
  })

  const newTenant = async () => {
    const res = await request(`${sb.origin}/__sandbox/tenants`, {method: 'POST', headers: {...controlHeaders(sb.token), 'content-type': 'application/json'}, body: '{}', dispatcher: agent})
    return (await res.body.json()) as {checkoutBaseUrl: string; publicKey: string}
  }

  let answered = 0
  const write = async (tenant: {checkoutBaseUrl: string; publicKey: string}): Promise<Answer> => {
    const res = await request(`${tenant.checkoutBaseUrl}/v1/checkouts`, {
      method: 'POST',
      headers: {authorization: basicAuth(tenant.publicKey), 'content-type': 'application/json'},
      body: CHECKOUT,
      dispatcher: agent,
    })
    await res.body.dump()
    const retryAfter = res.headers['retry-after']
    return {order: answered++, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined, status: res.statusCode}
  }

  it("answers B's write while A's line is full, A past its share 429, and no 500", async () => {
    const a = await newTenant()
    const b = await newTenant()

    let lineFull!: () => void
    const full = new Promise<void>((resolve) => {
      lineFull = resolve
    })
    const flood = Array.from({length: FLOOD}, () =>
      write(a).then((answer) => {
        if (answer.status === 429) lineFull()
        return answer
      }),
    )
    const settled = Promise.all(flood)
    // without shares no 429 ever comes: B then goes once the flood is over, and the assertions say why
    await Promise.race([full, settled])
    const sentAt = performance.now()
    const bAnswer = await write(b)
    const bMs = Math.round(performance.now() - sentAt)
    const aAnswers = await settled

    expect(bAnswer.status, `B's write (${bMs} ms)`).toBe(200)
    expect(aAnswers.filter((answer) => answer.status !== 200 && answer.status !== 429)).toEqual([])
    const refused = aAnswers.filter((answer) => answer.status === 429)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((answer) => answer.retryAfter === '1')).toBe(true)
    const accepted = aAnswers.filter((answer) => answer.status === 200)
    expect(accepted.length).toBeGreaterThanOrEqual(TENANT_ACTIVE_SHARE)
    // B did not wait behind A's line: some of A's accepted writes, in line when B was sent, were answered after it
    const afterB = accepted.filter((answer) => answer.order > bAnswer.order).length
    expect(afterB, `A's writes answered after B's (B took ${bMs} ms), of ${accepted.length} accepted`).toBeGreaterThan(0)
  })
})
