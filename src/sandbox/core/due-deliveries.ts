/**
 * Sends the webhook deliveries that are due, each by one process. A change that raises an event
 * stores its deliveries (state.ts, PendingDeliveries) in its own transaction; once it is committed,
 * the process that made it claims them and sends them. A claim lasts CLAIM_MS of real time and is
 * renewed while the delivery runs; every process also looks for deliveries nobody holds (left by a
 * restart, or by a replica that died mid-delivery, once its claim lapses) every POLL_MS. A finished
 * delivery (delivered or given up) is deleted. Delivery is at least once: a process killed after
 * the receiver took an event but before it deleted the row sends it again from another process.
 */
import type {SandboxStore} from './store.js'
import type {Tenant, Tenants} from './tenants.js'

import {claimDueDeliveries, type DueDelivery} from './state.js'

/** How long a claim holds without renewal: what a replica that died delays its deliveries by, at most. */
export const CLAIM_MS = 5000
const RENEW_MS = CLAIM_MS / 3
const POLL_MS = 1000
/** deliveries claimed per look */
const POLL_BATCH = 50

export class DueDeliveries {
  private poller?: NodeJS.Timeout
  private polling?: Promise<void>
  private readonly renewals = new Set<NodeJS.Timeout>()
  private readonly recording = new Set<Promise<void>>()

  constructor(
    private readonly store: SandboxStore,
    private readonly tenants: Tenants,
  ) {}

  /**
   * Looks for deliveries nobody holds now, then every POLL_MS. A SQLite file has one process: at
   * start, every claim on it was its previous run's, so all are taken over at once.
   */
  async start(): Promise<void> {
    this.poll(this.store.shared ? undefined : Number.MAX_SAFE_INTEGER)
    await this.polling
    this.poller = setInterval(() => this.poll(), POLL_MS)
    this.poller.unref()
  }

  stop(): void {
    clearInterval(this.poller)
    for (const renewal of this.renewals) clearInterval(renewal)
    this.renewals.clear()
  }

  /** Resolves once a look under way, and the records of deliveries finished, are done (on shutdown). */
  async settled(): Promise<void> {
    await this.polling
    await Promise.allSettled(this.recording)
  }

  /** Claims a delivery just committed and sends it; another process that claimed it first sends it instead. */
  claimAndDeliver(tenant: Tenant, id: string): void {
    this.claimOne(tenant, id).catch((error: unknown) => {
      process.stderr.write(`sandbox: could not start a webhook delivery: ${(error as Error).message}\n`)
    })
  }

  private async claimOne(tenant: Tenant, id: string): Promise<void> {
    const due = await tenant.pending.claim(id, Date.now() + CLAIM_MS)
    if (due) this.send(tenant, id, due)
  }

  private poll(lapsedBefore?: number): void {
    if (this.polling) return
    this.polling = this.claimUnheld(lapsedBefore)
      .catch((error: unknown) => {
        process.stderr.write(`sandbox: could not look for due webhook deliveries: ${(error as Error).message}\n`)
      })
      .finally(() => {
        this.polling = undefined
      })
  }

  private async claimUnheld(lapsedBefore = Date.now()): Promise<void> {
    // tenants past their TTL go on the same beat, from whichever replica looks first
    await this.tenants.removeExpired()
    const claimed = await claimDueDeliveries(this.store, {lapsedBefore, limit: POLL_BATCH, until: Date.now() + CLAIM_MS})
    for (const {due, id, tenant: tenantId} of claimed) {
      const tenant = await this.tenants.get(tenantId)
      // a tenant deleted meanwhile took its deliveries with it
      if (tenant) this.send(tenant, id, due)
    }
  }

  private send(tenant: Tenant, id: string, due: DueDelivery): void {
    const renewal = setInterval(() => {
      tenant.pending.renew(id, Date.now() + CLAIM_MS).catch(() => undefined)
    }, RENEW_MS)
    renewal.unref()
    this.renewals.add(renewal)
    tenant.deliveries.deliver(due.event, due.url, () => {
      clearInterval(renewal)
      this.renewals.delete(renewal)
      const recorded = tenant.pending
        .done(id)
        .catch((error: unknown) => {
          // it stays due: another look sends it again once the claim lapses (delivery is at least once)
          process.stderr.write(`sandbox: could not record a finished webhook delivery: ${(error as Error).message}\n`)
        })
        .finally(() => this.recording.delete(recorded))
      this.recording.add(recorded)
    })
  }
}
