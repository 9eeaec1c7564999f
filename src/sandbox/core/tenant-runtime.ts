/**
 * A tenant's runtime: what the core holds of one tenant while the sandbox runs, over its rows in
 * the database (the registry of tenants is tenants.ts). Its context (what its handlers get), its
 * clock, fault queue, event log and webhook deliveries, and which checkout keys are its own.
 *
 * `TenantRuntime` opens them all alike (the default tenant at start, the others on first use) and
 * is where their events go: listeners hear an event, and the due-work runner its deliveries,
 * once the change that raised it is committed.
 */
import {createHash, randomBytes, randomUUID} from 'node:crypto'

import type {KeyKindOf, ModuleState, SandboxContext, SandboxEvent, SandboxModule, SandboxState} from '../types.js'

import {SANDBOX_KEYS} from '../../services/sandbox-defaults.js'
import {callbackRefusal, deliveryRefusal, guardedLookup} from './callback-targets.js'
import {SandboxClock} from './clock.js'
import {EventLog} from './event-log.js'
import {FaultQueue} from './faults.js'
import {createSessions} from './sessions.js'
import {moduleStates, PendingDeliveries, SavedClock} from './state.js'
import {type SandboxStore, type TenantStore} from './store.js'
import {DEFAULT_TENANT, tenantPath} from './tenant-ids.js'
import {WebhookSender} from './webhooks.js'

export type KeyKind = 'public' | 'secret'

/** Everything of one tenant the core holds while the sandbox runs. */
export interface Tenant {
  id: string
  /** what its handlers get: its state, clock, sessions, origin (with its /t/<id> path), events */
  ctx: SandboxContext
  clock: SandboxClock
  savedClock: SavedClock
  /** by service name */
  states: ReadonlyMap<string, ModuleState>
  pending: PendingDeliveries
  faults: FaultQueue
  /** its recent events, for GET /__sandbox/events */
  events: EventLog
  /** sends its deliveries' attempts */
  deliveries: WebhookSender
  /** the kind of a checkout API key when it is one of this tenant's; undefined for any other */
  keyKind(key: string): KeyKind | undefined
}

/** A tenant's rows, as opened from the database: its clock, its handle, its pending deliveries, its modules' state. */
export interface TenantParts {
  clock: SandboxClock
  handle: TenantStore
  pending: PendingDeliveries
  savedClock: SavedClock
  states: Map<string, ModuleState>
}

/** The digests of a tenant's two checkout keys, as the registry keeps them (tenants.ts). */
export interface KeyDigests {
  publicKey: string
  secretKey: string
}

export const digestOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('base64url')

/** The default tenant's API keys: the published test keys (a Map: the key looked up is whatever a client sends). */
const PUBLISHED_KEYS = new Map<string, KeyKind>([
  [SANDBOX_KEYS.publicKey, 'public'],
  [SANDBOX_KEYS.secretKey, 'secret'],
])

function keyKindOf(digests: KeyDigests): KeyKindOf {
  const kinds = new Map<string, KeyKind>([
    [digests.publicKey, 'public'],
    [digests.secretKey, 'secret'],
  ])
  return (key) => kinds.get(digestOf(key))
}

const newId = (prefix?: string) => (prefix ? `${prefix}_${randomBytes(12).toString('hex')}` : randomUUID())
const hex = (length: number) =>
  randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length)

export interface TenantRuntimeOptions {
  modules: readonly SandboxModule[]
  store: SandboxStore
  /** what the sandbox tells its operator (a `--clock` it could not apply) */
  notice(message: string): void
  /** Webhooks to every address that is not global unicast are refused too (callback-targets.ts). */
  refusePrivateCallbacks: boolean
}

/** Opens tenants' runtimes, and hands on what they raise once it is committed. */
export class TenantRuntime {
  /** The sandbox's origin, known once it listens (`listening`). */
  private origin = ''
  private readonly eventListeners: ((event: SandboxEvent) => void)[] = []
  private readonly dueListeners: ((tenant: Tenant, deliveryId: string) => void)[] = []

  constructor(private readonly options: TenantRuntimeOptions) {}

  listening(origin: string): void {
    this.origin = origin
  }

  /** Hear each event once the change that raised it is durable. */
  onEvent(listener: (event: SandboxEvent) => void): void {
    this.eventListeners.push(listener)
  }

  /** Hear each webhook delivery a committed change made due (due-deliveries.ts claims and sends it). */
  onDue(listener: (tenant: Tenant, deliveryId: string) => void): void {
    this.dueListeners.push(listener)
  }

  /** The default tenant, over the rows `openState` read at start; `clock` (`--clock`) moves its clock forward. */
  async openDefault(parts: Omit<TenantParts, 'clock' | 'handle'>, clock: string | undefined): Promise<Tenant> {
    const {notice, store} = this.options
    const started = await startClock(parts.savedClock, clock, notice, parts.pending)
    return this.open(DEFAULT_TENANT, {...parts, clock: started, handle: store.forTenant(DEFAULT_TENANT)}, (key) => PUBLISHED_KEYS.get(key))
  }

  /** A tenant of the registry, over its rows. */
  async openRecord(record: {id: string; keyDigests: KeyDigests}): Promise<Tenant> {
    const {modules, notice, store} = this.options
    const handle = store.forTenant(record.id)
    const savedClock = new SavedClock(handle)
    const parts = {handle, pending: new PendingDeliveries(handle), savedClock, states: moduleStates(modules, handle)}
    return this.open(record.id, {...parts, clock: await startClock(savedClock, undefined, notice)}, keyKindOf(record.keyDigests))
  }

  /** A tenant's runtime over its rows: the context its handlers get, its clock, faults, events and webhook deliveries. */
  private open(id: string, parts: TenantParts, keyKind: KeyKindOf): Tenant {
    const {modules, store} = this.options
    const callbackRules = {refusePrivate: this.options.refusePrivateCallbacks}
    const events = new EventLog(parts.handle)
    const {clock} = parts
    const ctx: SandboxContext = {
      state: Object.fromEntries(parts.states) as unknown as SandboxState,
      clock,
      sessions: createSessions(() => sessionTable(modules, ctx), clock),
      origin: () => this.origin + tenantPath(id),
      id: newId,
      hex,
      apiKeyKind: keyKind,
      emit: async (event) => {
        await events.add({...event, at: clock.now().toISOString()})
        // The deliveries it is due are stored with the change that raised it, so they survive a restart.
        const due: string[] = []
        for (const m of modules) {
          const url = await m.webhookTarget?.(event, ctx)
          if (url) due.push(await parts.pending.add(event, url))
        }

        // listeners (webhook delivery) hear of it once the change that raised it is durable
        store.afterCommit(() => {
          for (const listener of this.eventListeners) listener(event)
          for (const deliveryId of due) for (const listener of this.dueListeners) listener(tenant, deliveryId)
        })
      },
      commitNow: (change) => store.commitNow(change),
      schedule: (service, at, work, key) => parts.pending.schedule(service, work, at, clock.offset, key),
      unschedule: (service, key) => parts.pending.unschedule(service, key),
      callbackRefusal: (url) => callbackRefusal(url, callbackRules),
    }
    const tenant: Tenant = {
      ctx,
      deliveries: new WebhookSender((url) => deliveryRefusal(url, callbackRules), guardedLookup(callbackRules)),
      events,
      faults: new FaultQueue(parts.handle),
      id,
      keyKind,
      ...parts,
    }
    return tenant
  }
}

function sessionTable(
  modules: readonly SandboxModule[],
  ctx: SandboxContext,
): NonNullable<ReturnType<NonNullable<SandboxModule['sessionTable']>>> {
  for (const m of modules) if (m.sessionTable) return m.sessionTable(ctx)
  throw new Error('No sandbox module keeps sessions')
}

/**
 * The clock where the state left it (a saved offset), so it never goes back across a restart;
 * `--clock` moves it forward from there, and is ignored, with a notice, when it is earlier.
 * Every move from then on is saved with the request that made it.
 */
async function startClock(
  saved: SavedClock,
  start: string | undefined,
  notice: (message: string) => void,
  pending?: PendingDeliveries,
): Promise<SandboxClock> {
  const clock = new SandboxClock()
  const offset = await saved.get()
  if (offset !== undefined) clock.restore(offset)
  if (start !== undefined) {
    if (offset === undefined || Date.parse(start) > clock.now().getTime()) clock.set(start)
    else notice(`the clock stays at ${clock.now().toISOString()}, where the state left it: --clock ${start} would move it back`)
  }

  if (clock.offset !== offset) {
    await saved.set(clock.offset)
    // --clock moved a saved clock forward: what was due on the way is due now
    if (offset !== undefined) await pending?.shift(clock.offset - offset)
  }

  // on SQLite the write runs synchronously, in the transaction of the request that moved the clock
  clock.onMove = (offsetMs) => {
    saved.set(offsetMs).catch((error: unknown) => process.stderr.write(`sandbox: could not save the clock: ${(error as Error).message}\n`))
  }

  return clock
}
