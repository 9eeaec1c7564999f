import type {z} from 'zod'

export type Service = 'health' | 'checkout'
export type HttpMethod = 'DELETE' | 'GET' | 'PATCH' | 'POST' | 'PUT'
/** none: no credential; session: health `connect.sid` cookie; public/secret: checkout API key. */
export type AuthKind = 'none' | 'public' | 'secret' | 'session'

export interface Operation<
  Body extends undefined | z.ZodType = undefined | z.ZodType,
  Res extends undefined | z.ZodType = undefined | z.ZodType,
> {
  id: string
  service: Service
  method: HttpMethod
  /** Path template relative to the service base URL, e.g. `/v1/checkouts/{checkoutId}`. */
  path: string
  auth: AuthKind
  summary: string
  /** Request body schema: validated before sending (client) and on arrival (sandbox). */
  body?: Body
  /** Query schema, for the sandbox and documentation; the client sends what it is given. */
  query?: z.ZodType
  /** Tolerant response schema: unknown fields pass through. Absent when the success answer has no body. */
  response?: Res
  successStatus: number
  /** Safe to repeat: only idempotent operations are ever retried. */
  idempotent: boolean
  /** Removes or reverses something: confirmation in a TTY, `--yes` without one. */
  destructive?: boolean
  /** Moves money or changes configuration: every attempt is appended to the local audit log. */
  audited?: boolean
}

export type BodyOf<O> = O extends Operation<infer B, infer _R> ? (B extends z.ZodType ? z.input<B> : undefined) : never
export type ResultOf<O> = O extends Operation<infer _B, infer R> ? (R extends z.ZodType ? z.output<R> : undefined) : never

/** Declares one row of a service's operations table. */
export function operation<Body extends undefined | z.ZodType = undefined, Res extends undefined | z.ZodType = undefined>(
  def: Operation<Body, Res>,
): Operation<Body, Res> {
  return Object.freeze(def)
}

/** Names of the `{param}` placeholders of a path template, in order. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/{(\w+)}/g)].map((m) => m[1])
}
