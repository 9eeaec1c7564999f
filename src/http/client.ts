import type {AuthKind, HttpMethod, InputArgs, Operation, ResultOf} from './operation.js'
import type {MaskedFields} from './redact.js'
import type {RetryPolicy} from './retry.js'

import {ApiError, UsageError} from '../errors.js'
import {issueText, rawAnswerProblem, readAnswer, UnreadableAnswerError} from './answer.js'
import {apiErrorFrom} from './api-error.js'
import {createTransport} from './create-transport.js'
import {parseOptions} from './first-parse.js'
import {parseJson} from './json.js'
import {sentPatientData} from './redact.js'
import {registerSecret} from './secrets/registry.js'
import {authFor, requestIdFrom, type ServiceTarget} from './services.js'
import {type InboundResponse, type Transport} from './transport.js'
import {buildUrl, expandPath, type QueryValue} from './url.js'

export type {RetryPolicy} from './retry.js'

/** What a call adds to the request parts its row types (`RequestOf`). */
export interface CallOptions {
  headers?: Record<string, string>
}

/** The loose form of a call's input, as the client handles it once the row's types have been checked. */
export interface CallInput extends CallOptions {
  params?: Record<string, string | undefined>
  query?: Record<string, unknown>
  body?: unknown
}

export interface ApiResponse<T> {
  data: T
  status: number
  headers: Record<string, string | string[] | undefined>
  requestId?: string
  durationMs: number
}

/**
 * An answer to `raw`: with `answerErrors`, one that is not a success carries the error it is: a
 * 4xx or 5xx its ApiError; a redirect (never followed), or a body that is not JSON where JSON was
 * asked for, an UnreadableAnswerError (exit 6). Its body is as received either way.
 */
export interface RawResponse extends ApiResponse<unknown> {
  error?: ApiError | UnreadableAnswerError
}

export interface ClientOptions {
  target: ServiceTarget
  /** Whole-call budget including retries; expiry is exit 7. */
  timeoutMs?: number
  /** The most bytes of each answer's body read (--max-body); more is exit 6. */
  maxBodyBytes?: number
  /** Receives the redacted `--verbose` trace. */
  trace?: (text: string) => void
  /** Fields whose values the trace masks (patient data). */
  traceMasked?: MaskedFields
  dryRun?: boolean
  retry?: Partial<RetryPolicy>
  /** How requests leave; by default the one `dryRun`, `timeoutMs`, `trace` and `retry` ask for. */
  transport?: Transport
}

/** One typed HTTP client for one service, as one caller: turns operations into requests and answers into data or ApiError. */
export class ServiceClient {
  readonly transport: Transport

  constructor(private readonly options: ClientOptions) {
    const {publicKey, secretKey, session} = options.target
    for (const secret of [publicKey, secretKey, session]) registerSecret(secret)
    this.transport = options.transport ?? createTransport(options)
  }

  get target(): ServiceTarget {
    return this.options.target
  }

  async call<O extends Operation>(op: O, ...args: InputArgs<O, CallOptions>): Promise<ApiResponse<ResultOf<O>>> {
    const input: CallInput = args[0] ?? {}
    const {body, query} = checkedInput(op, input)
    const request = {
      method: op.method,
      path: expandPath(op.path, input.params),
      query,
      body,
      headers: input.headers,
      auth: op.auth,
      idempotent: op.idempotent,
      operationId: op.id,
    }
    return answerOf<ResultOf<O>>(op, (await this.exchange(request)).answer)
  }

  /** The body as it would be sent, once the row's body and query schemas take the input; else a usage error (exit 2), nothing sent. */
  checkInput(op: Operation, input: CallInput): unknown {
    return checkedInput(op, input).body
  }

  /**
   * A request outside the table (`opsctl api`): no schema, its body as received (JSON parsed, else
   * the text). Retried only when the method is safe. Only a 2xx is a success: a 4xx or 5xx is an
   * ApiError; a redirect (3xx, never followed), or a 2xx body that is not JSON when JSON was asked
   * for (the default `accept`), is an UnreadableAnswerError (exit 6). With `answerErrors` the
   * answer is returned with that error in `error` rather than thrown, for a caller that shows
   * what arrived before failing.
   */
  async raw(
    method: HttpMethod,
    path: string,
    input: CallOptions & {answerErrors?: boolean; auth: AuthKind; body?: unknown; query?: Record<string, QueryValue>},
  ): Promise<RawResponse> {
    const operationId = `${method} ${path}`
    const {answer: res, error: apiError} = await this.exchange({
      answerErrors: input.answerErrors,
      method,
      path,
      query: input.query,
      body: input.body,
      headers: input.headers,
      auth: input.auth,
      idempotent: method === 'GET',
      operationId,
    })
    const data = parseJson(res.text)
    const accept = Object.entries(input.headers ?? {}).find(([name]) => name.toLowerCase() === 'accept')?.[1]
    const jsonAsked = accept === undefined || /json|\*\/\*/i.test(accept)
    const error = apiError ?? rawAnswerProblem(operationId, method, res, jsonAsked)
    if (error && !input.answerErrors) throw error
    return {
      data: res.text === '' ? undefined : (data ?? res.text),
      status: res.status,
      headers: res.headers,
      requestId: requestIdFrom(res.headers, data),
      durationMs: res.durationMs,
      ...(error ? {error} : {}),
    }
  }

  /** Sends one request; an answer of 400 or more is an ApiError, thrown unless `answerErrors`. */
  private async exchange(req: {
    answerErrors?: boolean
    method: HttpMethod
    path: string
    query?: Record<string, QueryValue>
    body?: unknown
    headers?: Record<string, string>
    auth: AuthKind
    idempotent: boolean
    operationId: string
  }): Promise<{answer: InboundResponse; error?: ApiError}> {
    const {target, traceMasked} = this.options
    const auth = authFor(target, req.auth)
    const outbound = {
      method: req.method,
      url: buildUrl(target.baseUrl, req.path, req.query),
      label: req.operationId,
      headers: req.headers,
      auth,
      body: req.body === undefined ? undefined : {json: req.body},
      idempotent: req.idempotent,
    }
    const res = await this.transport.send(outbound)
    let error: ApiError | undefined
    if (res.status >= 400) {
      // Patient data the server repeats in its error is masked as the trace masks it: in the Error line and --json alike.
      const patientData = traceMasked ? sentPatientData(outbound, traceMasked) : undefined
      error = apiErrorFrom(res, {operationId: req.operationId, patientData, secrets: auth.secrets, service: target.service})
      if (!req.answerErrors) throw error
    }

    return {answer: res, ...(error ? {error} : {})}
  }
}

/** A row's answer as data, by the one rule for answers (./answer.ts): its status and its schema, or an UnreadableAnswerError. */
function answerOf<T>(op: Operation, res: InboundResponse): ApiResponse<T> {
  const data = readAnswer(op, res) as T
  return {data, status: res.status, headers: res.headers, requestId: requestIdFrom(res.headers, data), durationMs: res.durationMs}
}

/** The body and query of a call as its row's schemas read them; either refused is a usage error (exit 2). */
function checkedInput(op: Operation, input: CallInput): {body: unknown; query?: Record<string, QueryValue>} {
  const body = checkedBody(op, input.body)
  let query = input.query as Record<string, QueryValue> | undefined
  if (op.query) {
    const parsed = op.query.safeParse(withoutUndefined(query), parseOptions(op.query))
    if (!parsed.success) throw new UsageError(`Invalid query: ${describeIssues(parsed.error.issues)}`)
    query = parsed.data as Record<string, QueryValue>
  }

  return {body, query}
}

/** The body as its row's schema reads it; one the schema refuses is a usage error (exit 2), and nothing is sent. */
export function checkedBody(op: Operation, body: unknown): unknown {
  if (!op.body) return body
  const parsed = op.body.safeParse(body ?? {}, parseOptions(op.body))
  if (!parsed.success) throw new UsageError(`Invalid request: ${describeIssues(parsed.error.issues)}`)
  return parsed.data
}

export function describeIssues(issues: readonly {path: readonly PropertyKey[]; message: string}[]): string {
  return issues.slice(0, 5).map(issueText).join('; ')
}

/** A query as sent: keys whose value is undefined are left out, as `buildUrl` leaves them out. */
function withoutUndefined(query: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined))
}
