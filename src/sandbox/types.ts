/**
 * The contract between the sandbox core (server, auth, validation, faults, persistence, clock)
 * and the per-service modules (health, checkout) that hold each operation's behaviour.
 *
 * The core registers one route per operation of a module's table, checks auth as the operation
 * says, validates the body with the operation's own zod schema, then calls the module's handler
 * for that operation id. A handler reads and changes `ctx.state` and returns a reply or throws
 * SandboxError; the core renders errors in the service's own shape and saves the state of
 * every request that changed it before the answer leaves.
 */
import type {FastifyInstance} from 'fastify'

import type {Operation, Service} from '../http/operation.js'
import type {CheckoutState} from './checkout/state.js'
import type {HealthState} from './health/state.js'

export interface SandboxState {
  /** of the --state file format (core/persistence.ts) */
  version: 2
  health: HealthState
  checkout: CheckoutState
}

export interface SandboxRequest {
  params: Record<string, string>
  /**
   * The query: when the operation has a `query` schema, its parsed output (a 400 is answered
   * before the handler when it fails); otherwise the raw query, a repeated key as an array.
   */
  query: Record<string, any>
  /** The body after validation by the operation's schema (unknown fields kept). */
  body: unknown
  headers: Record<string, string | string[] | undefined>
  /** health, session-auth operations: the signed-in user. `me` in a `userId` param is already replaced by it. */
  userId?: string
  /** checkout: the key kind the caller authenticated with. */
  key?: 'public' | 'secret'
  /** health: `accept-language`, if sent */
  language?: string
}

export interface SandboxReply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface FieldProblem {
  field: string
  description: string
}

/** A refusal in the service's own error shape (the core renders it per service). */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldProblem[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export interface Clock {
  now(): Date
  set(iso: string): void
  advance(ms: number): void
}

export interface Sessions {
  /** Issues a new opaque session id for the user; reply with `setCookie(sid)` in the headers. */
  create(userId: string): string
  /** The user of a live session, touching its idle timer; undefined when unknown or expired. */
  lookup(sid: string): string | undefined
  cookieHeader(sid: string): Record<string, string>
}

/** Events a module raises for others to act on (webhook delivery listens to checkout events). */
export interface SandboxEvent {
  type: 'CHECKOUT_DROPOUT' | 'CHECKOUT_FAILURE' | 'CHECKOUT_SUCCESS'
  checkoutId: string
  payload: unknown
}

export interface SandboxContext {
  state: SandboxState
  clock: Clock
  sessions: Sessions
  /** e.g. http://127.0.0.1:4010, for absolute URLs such as a checkout's redirectUrl */
  origin(): string
  /** Unique ids: `id('chk')` -> `chk_3f9c...`; `hex(24)` for Mongo-like ids. */
  id(prefix?: string): string
  hex(length: number): string
  /** Marks the state changed; the core saves it before the answer is sent. */
  changed(): void
  emit(event: SandboxEvent): void
}

export type Handler = (req: SandboxRequest, ctx: SandboxContext) => Promise<SandboxReply> | SandboxReply

export interface SandboxModule {
  service: Service
  /** Path prefix of the service on the sandbox origin: '' for health (`/api/...`), '/checkout' for checkout. */
  prefix: string
  operations: readonly Operation[]
  /** One handler per operation id. */
  handlers: Record<string, Handler>
  emptyState(): unknown
  /** Routes outside the operations table (the hosted payment page, sign-in if not in the table, ...). */
  routes?(app: FastifyInstance, ctx: SandboxContext): void
  /** Extra `/__sandbox/...` control routes (seeding ACT results, ...). */
  control?(app: FastifyInstance, ctx: SandboxContext): void
  /** Demo data for `--seed`. */
  seed?(ctx: SandboxContext): void
  /** The callback URL registered for an event, if any: the core delivers the event there. */
  webhookTarget?(event: SandboxEvent, ctx: SandboxContext): string | undefined
}
