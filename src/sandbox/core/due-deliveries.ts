/**
 * Runs the tenants' due work, each row by one process: webhook deliveries and modules' jobs (a
 * checkout's expiry). A change that raises an event stores its deliveries (state.ts,
 * PendingDeliveries) in its own transaction; once it is committed, the process that made it claims
 * them and sends them. A claim lasts CLAIM_MS of real time and is renewed while the delivery runs;
 * every process also looks for due rows nobody holds (fallen due on the tenant's clock, left by a
 * restart, or by a replica that died mid-delivery, once its claim lapses) every POLL_MS, and at
 * once after a clock moved.
 *
 * A failed attempt is retried on the tenant's time: 5, 15 and 45 minutes after each failure
 * (attempts at 0, 5, 20 and 65 minutes), then given up. Each attempt is logged with the tenant's
 * time it was due at, so a clock advanced past several of them replays them in order, each at its
 * own time. Delivery is at least once: a process killed after the receiver took an event but
 * before it recorded that sends it again from another process, with the same delivery id.
 */
import type {SandboxModule} from '../types.js'
import type {SandboxStore} from './store.js'
import type {Tenant} from './tenant-runtime.js'
import type {Tenants} from './tenants.js'

import {claimDueDeliveries, CLOCK_COLLECTION, CLOCK_KEY, type DeliveryAttempt, type DueDelivery, type DueJob, type DueWork} from './state.js'

/** How long a claim holds without renewal: what a replica that died delays its deliveries by, at most. */
export const CLAIM_MS = 5000
const RENEW_MS = CLAIM_MS / 3
const POLL_MS = 1000
/** rows claimed per look */
const POLL_BATCH = 50
const MINUTE = 60_000
/** The waits after the 1st, 2nd and 3rd failed attempt (the real service's); after the 4th, it is given up. */
export const RETRY_DELAYS_MS = [5 * MINUTE, 15 * MINUTE, 45 * MINUTE] as const
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1

export class DueDeliveries {
  private poller?: NodeJS.Timeout
  private polling?: Promise<void>
  /** another look was asked for while one ran (a clock moved): it runs right after */
  private again = false
  private readonly renewals = new Set<NodeJS.Timeout>()
  private readonly running = new Set<Promise<void>>()

  constructor(
    private readonly store: SandboxStore,
    private readonly tenants: Tenants,
    private readonly modules: readonly SandboxModule[],
  ) {}

  /**
   * Looks for due rows nobody holds now, then every POLL_MS. A SQLite file has one process: at
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

  /** Resolves once a look under way, and the work it started, are done (on shutdown). */
  async settled(): Promise<void> {
    await this.polling
    while (this.running.size > 0) await Promise.allSettled(this.running)
  }

  /** Looks now, not at the next beat (a tenant's clock moved: work may have fallen due). */
  pollNow(): void {
    if (this.polling) this.again = true
    else this.poll()
  }

  /** Claims a delivery just committed and sends it; another process that claimed it first sends it instead. */
  claimAndDeliver(tenant: Tenant, id: string): void {
    this.track(this.claimOne(tenant, id))
  }

  private track(work: Promise<void>): void {
    const job = work
      .catch((error: unknown) => {
        process.stderr.write(`sandbox: due work failed: ${(error as Error).message}\n`)
      })
      .finally(() => this.running.delete(job))
    this.running.add(job)
  }

  private async claimOne(tenant: Tenant, id: string): Promise<void> {
    const due = await tenant.pending.claim(id, Date.now() + CLAIM_MS)
    if (due) await this.run(tenant, id, due)
  }

  private poll(lapsedBefore?: number): void {
    if (this.polling) return
    this.polling = this.claimUnheld(lapsedBefore)
      .catch((error: unknown) => {
        process.stderr.write(`sandbox: could not look for due work: ${(error as Error).message}\n`)
      })
      .finally(() => {
        this.polling = undefined
        if (this.again) {
          this.again = false
          this.poll()
        }
      })
  }

  private async claimUnheld(lapsedBefore = Date.now()): Promise<void> {
    // tenants past their TTL go on the same beat, from whichever replica looks first
    await this.tenants.removeExpired()
    const claimed = await claimDueDeliveries(this.store, {lapsedBefore, limit: POLL_BATCH, until: Date.now() + CLAIM_MS})
    for (const {due, id, tenant: tenantId} of claimed) {
      const tenant = await this.tenants.get(tenantId)
      // a tenant deleted meanwhile took its rows with it
      if (tenant) this.track(this.run(tenant, id, due))
    }
  }

  private async run(tenant: Tenant, id: string, due: DueWork): Promise<void> {
    const renewal = setInterval(() => {
      tenant.pending.renew(id, Date.now() + CLAIM_MS).catch(() => undefined)
    }, RENEW_MS)
    renewal.unref()
    this.renewals.add(renewal)
    try {
      await (due.kind === 'job' ? this.runJob(tenant, id, due) : this.attempt(tenant, id, due))
    } finally {
      clearInterval(renewal)
      this.renewals.delete(renewal)
    }
  }

  /** A module's job, in a transaction of its own with the row's removal: it happens once. */
  private async runJob(tenant: Tenant, id: string, job: DueJob): Promise<void> {
    const module = this.modules.find((m) => m.service.name === job.service)
    await this.store.commitNow(async () => {
      await this.store.beginWrite(tenant.id)
      // read in the job's transaction, on its connection: a read on another one (while holding this
      // one and the tenant's lock) could wait for ever on a pool that jobs waiting for the lock fill;
      // the clock and what the job reads go with the lock, in one statement
      if (this.store.shared) {
        const docs = [{collection: CLOCK_COLLECTION, key: CLOCK_KEY}, ...(module?.dueDocs?.(job.work) ?? [])]
        await this.store.prefetch(docs.map((doc) => ({...doc, tenant: tenant.id})))
        tenant.clock.restore((await tenant.savedClock.get()) ?? 0)
      }

      await module?.due?.(job.work, tenant.ctx)
      await tenant.pending.doneWithin(id)
    })
  }

  /** One attempt of a delivery; a failure is retried on the tenant's time, the 4th given up. */
  private async attempt(tenant: Tenant, id: string, due: DueDelivery): Promise<void> {
    const attempt = due.attempt ?? 1
    const body = due.body ?? JSON.stringify(due.event.payload)
    const offset = this.store.shared ? await tenant.pending.savedOffset() : tenant.clock.offset
    const at = due.dueAt ?? new Date(Date.now() + offset).toISOString()
    const result = await tenant.deliveries.attempt({attempt, body, event: due.event.type, id, url: due.url})
    const delivered = result.status !== null && result.status >= 200 && result.status < 300
    const outcome: DeliveryAttempt['outcome'] = delivered ? 'delivered' : result.refused || attempt >= MAX_ATTEMPTS ? 'gave-up' : 'retrying'
    await tenant.pending.log({
      at,
      attempt,
      body,
      checkoutId: due.event.checkoutId,
      deliveryId: id,
      durationMs: result.durationMs,
      event: due.event.type,
      outcome,
      status: result.status,
      url: due.url,
      ...(result.error ? {error: result.error} : {}),
    })
    if (outcome !== 'retrying') {
      await tenant.pending.done(id)
      return
    }

    const next = Date.parse(at) + RETRY_DELAYS_MS[attempt - 1]
    // the clock read now: it may have been advanced while the attempt was under way
    const nowOffset = this.store.shared ? await tenant.pending.savedOffset() : tenant.clock.offset
    const nextReal = next - nowOffset
    await tenant.pending.reschedule(id, {...due, attempt: attempt + 1, body, dueAt: new Date(next).toISOString()}, nextReal)
    // a clock advanced past it: the next attempt is due already
    if (nextReal <= Date.now()) await this.claimOne(tenant, id)
  }
}
