/**
 * The operations table: one `defineService` per service, one row per operation. Everything that
 * differs between operations is a field of its row, read in one place each: the client (request,
 * validation, retries from `idempotent`, the audit from `audited`), `paginate` (from `paging`),
 * the CLI (confirmation from `destructive`) and the sandbox (routes, validation, success status,
 * and handlers typed from the table).
 */
import type * as z from 'zod'

/** A service's name, as its table (`defineService`) and its module (src/services/registry.ts) give it. */
export type Service = string
export type HttpMethod = 'DELETE' | 'GET' | 'PATCH' | 'POST' | 'PUT'
/** The credential a row needs: none; a session; a public or a secret API key. The service's module says how each is sent. */
export type AuthKind = 'none' | 'public' | 'secret' | 'session'

/** Where a paged answer keeps its items and the next page's token, and which query key asks for a page. */
export interface Paging {
  /** The query parameter that carries a page's token. */
  token: string
  /** The key of the answer whose value is the page's items (an array). */
  items: string
  /** Dotted path in the answer to the next page's token; absent or empty on the last page. */
  next: string
}

/** A row as a table writes it: `id` and `service` come from `defineService`, the rest has defaults. */
export interface OperationRow {
  method: HttpMethod
  /** Path template relative to the service base URL, e.g. `/v1/checkouts/{checkoutId}`. */
  path: string
  auth: AuthKind
  /** Request body schema: validated before sending (client) and on arrival (sandbox). */
  body?: z.ZodType
  /** Query schema: validated before sending (client) and on arrival (sandbox). */
  query?: z.ZodType
  /**
   * Response schema: unknown fields pass through, but an answer without a field it declares (or
   * with one of another type) cannot be read (./answer.ts, exit 6). Absent when the success answer has no body.
   */
  response?: z.ZodType
  /** The status of a success; 200 unless the row says otherwise. The sandbox answers with it. */
  successStatus?: number
  /**
   * Safe to repeat: only idempotent operations are ever retried. Derived from the method (GET,
   * PUT and DELETE are, POST and PATCH are not); a row that says otherwise gives its reason.
   */
  idempotent?: boolean
  /** Removes or reverses something: confirmation in a TTY, `--yes` without one. */
  destructive?: boolean
  /** Moves money or changes configuration: every attempt is appended to the local audit log. */
  audited?: boolean
  /** A paged list: `paginate` follows it. */
  paging?: Paging
}

/** A row of a defined table, with every default filled in. */
export interface Operation extends OperationRow {
  id: string
  service: Service
  successStatus: number
  idempotent: boolean
  destructive: boolean
  audited: boolean
}

type Defined<Row, Id extends string, Name extends Service> = Readonly<
  Omit<Row, 'audited' | 'destructive' | 'idempotent' | 'successStatus'> & {
    id: Id
    service: Name
    successStatus: number
    idempotent: boolean
    destructive: boolean
    audited: boolean
  }
>

export interface ServiceDefinition<
  Name extends Service = Service,
  Ops extends Record<string, Operation> = Record<string, Operation>,
> {
  name: Name
  /** The table, by operation id. */
  operations: Ops
  /** The same rows in the order the table writes them. */
  list: readonly Operation[]
}

const IDEMPOTENT_METHODS = new Set<HttpMethod>(['DELETE', 'GET', 'PUT'])

/** Fills the defaults of one row; `defineService` uses it, and tests that need a lone row. */
export function operation<const Row extends OperationRow & {id: string; service: Service}>(
  row: Row,
): Defined<Row, Row['id'], Row['service']> {
  if (row.paging && !row.query) throw new Error(`${row.id}: a paged operation needs a query schema (its token is a query parameter)`)
  return Object.freeze({
    ...row,
    successStatus: row.successStatus ?? 200,
    idempotent: row.idempotent ?? IDEMPOTENT_METHODS.has(row.method),
    destructive: row.destructive ?? false,
    audited: row.audited ?? false,
  })
}

/** Declares a service's table. Row keys are the operation ids. */
export function defineService<const Name extends Service, const Rows extends Record<string, OperationRow>>(def: {
  name: Name
  operations: Rows
}): ServiceDefinition<Name, {[K in keyof Rows & string]: Defined<Rows[K], K, Name>}> {
  const operations = Object.fromEntries(
    Object.entries(def.operations).map(([id, row]) => [id, operation({...row, id, service: def.name})]),
  ) as {[K in keyof Rows & string]: Defined<Rows[K], K, Name>}
  return Object.freeze({name: def.name, operations: Object.freeze(operations), list: Object.freeze(Object.values(operations))})
}

// ---------------------------------------------------------------------------------------------
// Types derived from a row, for call sites (client, paginate) and sandbox handlers
// ---------------------------------------------------------------------------------------------

type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never
/** A row whose type is only `Operation` (e.g. a parameter typed loosely): its inputs are not known. */
type IsLoose<O extends Operation> = string extends O['id'] ? true : false
/** Drops an index signature (z.looseObject adds one), so that a misspelt key does not type-check. */
type KnownKeys<T> = {[K in keyof T as string extends K ? never : number extends K ? never : K]: T[K]}
/** KnownKeys at every depth: the fields a schema names, whatever else a value carries. */
export type Named<T> = T extends readonly (infer I)[]
  ? Named<I>[]
  : T extends object
    ? {[K in keyof T as string extends K ? never : number extends K ? never : K]: Named<T[K]>}
    : T

/** The path parameters of a row: `{checkoutId: string}` for `/v1/checkouts/{checkoutId}`. */
export type ParamsOf<O extends Operation> =
  IsLoose<O> extends true ? Record<string, string | undefined> : {[K in PathParamNames<O['path']>]: string}
/** What the row's query schema takes (known keys only). */
export type QueryOf<O extends Operation> =
  IsLoose<O> extends true
    ? Record<string, unknown>
    : O extends {query: infer Q extends z.ZodType}
      ? KnownKeys<z.input<Q>>
      : never
/** What the row's body schema takes. */
export type BodyOf<O extends Operation> = O extends {body: infer B extends z.ZodType} ? z.input<B> : undefined
/** The parsed success answer. */
export type ResultOf<O extends Operation> = O extends {response: infer R extends z.ZodType} ? z.output<R> : undefined
/** One item of a paged answer. */
export type ItemOf<O extends Operation> = O extends {paging: {items: infer K}}
  ? K extends keyof ResultOf<O>
    ? ResultOf<O>[K] extends readonly (infer I)[] | undefined
      ? I
      : never
    : never
  : never

/** The request parts of a call of `O`: params when the path has any, the query it takes, the body it needs. */
export type RequestOf<O extends Operation> = (IsLoose<O> extends true
  ? {params?: Record<string, string | undefined>; query?: Record<string, unknown>; body?: unknown}
  : ([PathParamNames<O['path']>] extends [never] ? {params?: Record<string, never>} : {params: ParamsOf<O>}) &
      (O extends {query: z.ZodType} ? {query?: QueryOf<O>} : {query?: undefined}) &
      (O extends {body: z.ZodType} ? {body: BodyOf<O>} : {body?: undefined}))

/** The input of a call of `O` as rest arguments: optional only when the row needs nothing. */
export type InputArgs<O extends Operation, Extra> = Record<string, never> extends RequestOf<O>
  ? [input?: Extra & RequestOf<O>]
  : [input: Extra & RequestOf<O>]

/** Names of the `{param}` placeholders of a path template, in order. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/{(\w+)}/g)].map((m) => m[1])
}

/**
 * The row of `rows` a raw request (`opsctl api`) is a call of: same method, and a path (its query
 * left aside) that the row's template matches, a `{param}` standing for one non-empty segment.
 * Where two match (`/api/users/me` and `/api/users/{userId}`), the one with more fixed segments.
 */
export function rowAt<O extends Operation>(rows: readonly O[], method: HttpMethod, path: string): O | undefined {
  const segments = path.split(/[?#]/, 1)[0].replace(/\/+$/, '').split('/')
  const fixed = (row: O) => row.path.split('/').filter((s) => !/^{\w+}$/.test(s)).length
  const matches = rows.filter((row) => {
    const template = row.path.split('/')
    return row.method === method && template.length === segments.length && template.every((s, i) => (/^{\w+}$/.test(s) ? segments[i] !== '' : s === segments[i]))
  })
  return matches.sort((a, b) => fixed(b) - fixed(a))[0]
}
