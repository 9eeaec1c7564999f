import * as z from 'zod'

import {DocTable, type TenantStore} from './store.js'

export const FaultKind = z.enum(['drop', 'drop-after-commit', '500', 'delay'])

export const Fault = z.object({
  /** operation id, e.g. refundCheckout; `*` for any operation */
  op: z.string().min(1),
  kind: FaultKind,
  ms: z.number().int().min(0).max(60_000).optional(),
})
export type Fault = z.infer<typeof Fault>

/** Faults pending at once, per tenant: each is a row of the tenant's state, read by every request. */
export const MAX_PENDING_FAULTS = 1000

/** Where a tenant's queue is stored: read with its clock and registry row in one statement (tenants.ts). */
export const FAULTS_COLLECTION = 'core.faults'
export const FAULTS_KEY = 'queue'

export const FaultScript = z.object({next: z.array(Fault).min(1).max(MAX_PENDING_FAULTS)})

/** Whether a fault is for this operation (`*`: for every one). */
const matching = (operationId: string) => (f: Fault) => f.op === operationId || f.op === '*'

/**
 * Faults scripted for the next requests, each used exactly once: the first queued fault whose
 * `op` matches an incoming operation is taken off the queue and applied to that request. The
 * queue is a row of the tenant's state (committed with the request that took a fault), so every
 * replica of a sandbox on PostgreSQL applies the same queue, and a fault is taken by one request.
 */
export class FaultQueue {
  private readonly table: DocTable<Fault[]>

  constructor(private readonly handle: TenantStore) {
    this.table = new DocTable(handle, FAULTS_COLLECTION)
  }

  async pending(): Promise<Fault[]> {
    return (await this.table.get(FAULTS_KEY)) ?? []
  }

  /** Queues more faults; false (nothing queued) when the queue would pass MAX_PENDING_FAULTS. */
  async add(faults: Fault[]): Promise<boolean> {
    const queue = await this.pending()
    if (queue.length + faults.length > MAX_PENDING_FAULTS) return false
    await this.table.set(FAULTS_KEY, [...queue, ...faults])
    return true
  }

  async clear(): Promise<void> {
    await this.table.delete(FAULTS_KEY)
  }

  /** Whether a fault waits for the operation (as the request read the queue: no round trip when it read it already). */
  async due(operationId: string): Promise<boolean> {
    return (await this.pending()).some(matching(operationId))
  }

  async take(operationId: string): Promise<Fault | undefined> {
    const matches = matching(operationId)
    // the common case, no fault for it, reads and writes nothing else
    if (!(await this.due(operationId))) return undefined
    const {store} = this.handle
    if (!store.shared) {
      // committed now: a delay fault then sleeps with no transaction open (SQLite's one transaction is every request's)
      const fault = await this.takeFirst(matches)
      await store.commit()
      return fault
    }

    // replicas: taken in a transaction of its own, under the tenant's lock, so one request takes it and
    // the request it delays holds no lock while it waits
    let fault: Fault | undefined
    await store.commitNow(async () => {
      await store.beginWrite(this.handle.tenant)
      fault = await this.takeFirst(matches)
    })
    return fault
  }

  private async takeFirst(matches: (f: Fault) => boolean): Promise<Fault | undefined> {
    const queue = (await this.table.reread(FAULTS_KEY)) ?? []
    const i = queue.findIndex(matches)
    if (i === -1) return undefined
    const [fault] = queue.splice(i, 1)
    await (queue.length > 0 ? this.table.set(FAULTS_KEY, queue) : this.table.delete(FAULTS_KEY))
    return fault
  }
}
