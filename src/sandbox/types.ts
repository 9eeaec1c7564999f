/**
 * The contract between the sandbox core (server, auth, validation, faults, store, clock)
 * and the per-service modules (health, checkout) that hold each operation's behaviour.
 *
 * The core registers one route per operation of a module's service definition, checks auth as
 * the row says, validates the body and query with the row's own zod schemas, then calls the
 * module's handler for that operation id. A handler reads and changes `ctx.state` (the module's
 * repositories over the sandbox database: a changed record is saved with `set`) and returns the
 * answer's body (sent with the row's success status), a `Reply` when it needs headers or another
 * status, or throws SandboxError; the core renders errors in the service's own shape and commits
 * what a request wrote before its answer leaves.
 */
import type {FastifyInstance, FastifyRequest} from 'fastify'
import type * as z from 'zod'

import type {Named, Operation, ParamsOf, ServiceDefinition} from '../http/operation.js'
import type {ModuleState} from './core/module-state.js'
import type {SandboxError} from './core/sandbox-error.js'
import type {RouteDoc, TenantStore} from './core/store.js'

export type {ModuleState} from './core/module-state.js'
export {type FieldProblem, SandboxError} from './core/sandbox-error.js'

/**
 * Each module's state, by its service's name. A module types its own entry where it declares its
 * store, by augmenting this interface (`declare module '../types.js' {interface SandboxState
 * {health: HealthStore}}`): nothing here names a module.
 */
export interface SandboxState {
  [service: string]: ModuleState
}

/** The caller a module's `authenticate` found: the signed-in user, or the kind of API key. */
export type Caller = Pick<SandboxRequest, 'key' | 'userId'>

/** The sessions table of the module that keeps sign-ins (core/sessions.ts reads and writes it). */
export interface SessionTable {
  /** every session: an imported state signs no one in unless asked to keep them (core/state-routes.ts) */
  clear(): Promise<void>
  delete(key: string): Promise<boolean>
  get(key: string): Promise<undefined | {lastSeen: number; userId: string}>
  set(key: string, session: {lastSeen: number; userId: string}): Promise<void>
}


export interface SandboxRequest<O extends Operation = Operation> {
  params: string extends O['id'] ? Record<string, string> : {[K in keyof ParamsOf<O>]: string}
  /**
   * The query: when the operation has a `query` schema, its parsed output (a 400 is answered
   * before the handler when it fails); otherwise the raw query, a repeated key as an array.
   */
  query: O extends {query: infer Q extends z.ZodType} ? z.output<Q> : Record<string, any>
  /** The body after validation by the operation's schema (unknown fields kept). */
  body: O extends {body: infer B extends z.ZodType} ? z.output<B> : unknown
  headers: Record<string, string | string[] | undefined>
  /** health, session-auth operations: the signed-in user. `me` in a `userId` param is already replaced by it. */
  userId?: string
  /** checkout: the key kind the caller authenticated with. */
  key?: 'public' | 'secret'
  /** health: `accept-language`, if sent */
  language?: string
}

/** An answer as it leaves: the core builds it from what a handler returned (`answer` in core/answer.ts). */
export interface SandboxReply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** What a handler returns when the body alone is not the whole answer: headers, or a status the spec allows besides the row's. */
export class Reply<B = unknown> {
  constructor(
    readonly body: B,
    readonly init: {headers?: Record<string, string>; status?: number} = {},
  ) {}
}


export interface Clock {
  now(): Date
  set(iso: string): void
  advance(ms: number): void
}

export interface Sessions {
  /** Issues a new opaque session id for the user; reply with `setCookie(sid)` in the headers. */
  create(userId: string): Promise<string>
  /** The user of a live session, touching its idle timer; undefined when unknown or expired. */
  lookup(sid: string): Promise<string | undefined>
  cookieHeader(sid: string): Record<string, string>
}

/** Events a module raises for others to act on (webhook delivery listens to checkout events). */
export interface SandboxEvent {
  type: 'CHECKOUT_DROPOUT' | 'CHECKOUT_FAILURE' | 'CHECKOUT_SUCCESS'
  checkoutId: string
  payload: unknown
}

/** The kind of an API key a caller sent, among one tenant's keys; undefined when it is not one of them. */
export type KeyKindOf = (key: string) => 'public' | 'secret' | undefined

/**
 * The context of the tenant a request is for (core/request-scope.ts): routes outside the table (the
 * hosted page, control routes) ask for it per request, so they never hold another tenant's.
 */
export type ContextOf = (request: FastifyRequest) => SandboxContext

export interface SandboxContext {
  state: SandboxState
  clock: Clock
  sessions: Sessions
  /** e.g. http://127.0.0.1:4010 (a tenant's: http://127.0.0.1:4010/t/<id>), for absolute URLs such as a checkout's redirectUrl */
  origin(): string
  /** Unique ids: `id('chk')` -> `chk_3f9c...`; `hex(24)` for Mongo-like ids. */
  id(prefix?: string): string
  hex(length: number): string
  /** The kind of an API key among the tenant's keys (the published test keys for the default tenant); undefined for any other. */
  apiKeyKind: KeyKindOf
  /** Raises an event; listeners (webhook delivery) hear it once the request's changes are committed. */
  emit(event: SandboxEvent): Promise<void>
  /**
   * Runs a change in a transaction of its own and commits it at once (rolled back if it throws):
   * long work done in batches (generated events), so the sandbox answers other requests between
   * them. When another request's change is open, it waits for that one's commit rather than join it.
   */
  commitNow(change: () => Promise<void>): Promise<void>
  /**
   * Stores work of the module `service` due at `at` on the tenant's clock, with the request's
   * change: when the clock reaches it (advanced, or real time passing), the module's `due` runs
   * it, once, in a transaction of its own, on whichever replica claims it. A `key` (unique within
   * the module) lets `unschedule` drop it.
   */
  schedule(service: string, at: Date, work: unknown, key?: string): Promise<void>
  /** Drops the work `schedule` stored under `key`, with the request's change: it will not run (gone already: nothing). */
  unschedule(service: string, key: string): Promise<void>
  /** Why the sandbox would not send a webhook to this callback URL (core/callback-targets.ts), or undefined. */
  callbackRefusal(url: string): string | undefined
}

/** The body a row's success answer carries (the fields its response schema names; more may travel), or nothing. */
type AnswerBody<O extends Operation> = O extends {response: infer R extends z.ZodType} ? Named<z.input<R>> : undefined
type Answer<O extends Operation> = AnswerBody<O> extends undefined ? Reply<undefined> | void : AnswerBody<O> | Reply<AnswerBody<O>>

export type Handler<O extends Operation = Operation> = (req: SandboxRequest<O>, ctx: SandboxContext) => Answer<O> | Promise<Answer<O>>

/** One handler per operation of a service, typed from its row: a missing or misnamed one fails `tsc`. */
export type HandlersFor<S extends ServiceDefinition> = {[K in keyof S['operations']]: Handler<S['operations'][K]>}

export interface SandboxModule<S extends ServiceDefinition = ServiceDefinition> {
  /** The service's table: the core registers one route per row. */
  service: S
  /** Path prefix of the service on the sandbox origin: '' for health (`/api/...`), '/checkout' for checkout. */
  prefix: string
  handlers: HandlersFor<S>
  /** The module's state of one tenant over the sandbox database (its tables are in core/schema.ts). */
  openState(store: TenantStore): ModuleState
  /** Routes outside the operations table (the hosted payment page, sign-in if not in the table, ...); served for every tenant. */
  routes?(app: FastifyInstance, ctxOf: ContextOf): void
  /** Extra `/__sandbox/...` control routes (seeding ACT results, ...); served for every tenant. */
  control?(app: FastifyInstance, ctxOf: ContextOf): void
  /** Demo data for `--seed`. */
  seed?(ctx: SandboxContext): Promise<void>
  /**
   * Checks a request to one of its rows as the service does (credentials, required headers) and
   * says who the caller is; throws SandboxError to refuse. `params` may be rewritten (`me`).
   * Without it, every row is open.
   */
  authenticate?(op: Operation, request: {headers: Record<string, string | string[] | undefined>; params: Record<string, string>}, ctx: SandboxContext): Caller | Promise<Caller>
  /** Its error answers: the body of a refusal in the service's shape, and the codes of refusals the core makes (by status). */
  errors?: {
    body(error: SandboxError, requestId: string): unknown
    codeForStatus?(status: number): string
  }
  /** Headers on every answer under its prefix (its request-id header, the language it answered in). */
  answerHeaders?(request: {headers: Record<string, string | string[] | undefined>; id: string}): Record<string, string>
  /** Where sign-in sessions live (`ctx.sessions` reads and writes them): the module whose service signs users in. */
  sessionTable?(ctx: SandboxContext): SessionTable
  /** Runs work it scheduled (`ctx.schedule`) once it falls due on the tenant's clock. */
  due?(work: unknown, ctx: SandboxContext): Promise<void>
  /** The documents its `due` reads for that work: read with the clock under the tenant's lock, in one statement (PostgreSQL). */
  dueDocs?(work: unknown): RouteDoc[]
  /** The callback URL registered for an event, if any: the core delivers the event there. */
  webhookTarget?(event: SandboxEvent, ctx: SandboxContext): Promise<string | undefined>
  /**
   * The documents a request to one of its routes reads, by the route's URL parameters and the
   * request's headers: read with the tenant's own in one statement (PostgreSQL; core/request-scope.ts),
   * for a read when it arrives, for a write under its tenant's lock. A key of null reads the whole
   * collection, a KeyFrom the document another names. Naming one the handler does not read costs
   * next to nothing.
   */
  prefetch?(request: {headers: Readonly<Record<string, string | string[] | undefined>>; params: Readonly<Record<string, string>>}): RouteDoc[]
}

/** Checks a module against its own table (every handler present and typed from its row), then lets the core hold any module. */
export function sandboxModule<S extends ServiceDefinition>(module: SandboxModule<S>): SandboxModule {
  return module as unknown as SandboxModule
}
