import type {Dispatcher} from 'undici'

import type {AuthKind, HttpMethod, Operation, ResultOf} from './operation.js'

import {ApiError, ExitCode, NetworkError, UsageError} from '../errors.js'
import {toCurl} from './curl.js'
import {getDispatcher} from './dispatcher.js'
import {parseErrorBody} from './error-body.js'
import {hasSecretField, redactBody, redactHeaders, redactUrl, scrubSecrets, SECRET_HEADERS} from './redact.js'
import {type RetryPolicy, retryWithin} from './retry.js'
import {registerSecret} from './secrets/registry.js'
import {registerBodySecrets, registerHeaderSecrets} from './secrets/sources.js'
import {authFor, REFUSAL_CODES, requestIdFrom, type ServiceTarget} from './services.js'
import {assertSafeTransport, buildUrl, expandPath, type QueryValue} from './url.js'
import {USER_AGENT} from './user-agent.js'

export type {RetryPolicy} from './retry.js'

export interface CallInput {
  params?: Record<string, string | undefined>
  query?: Record<string, QueryValue>
  body?: unknown
  headers?: Record<string, string>
  /** Facts for the audit line that the request itself does not carry (e.g. the amount a void reverses). */
  auditNote?: {amount?: {currency?: string; value: string}}
  /** For `beforeSend` on a destructive row: the prompt's words and the id typed back on production. */
  confirm?: {action: string; resourceId?: string}
}

export interface ApiResponse<T> {
  data: T
  status: number
  headers: Record<string, string | string[] | undefined>
  requestId?: string
  durationMs: number
}

/** What the client reports about an attempt at an audited operation (never a credential). */
export interface AttemptRecord {
  operation: Operation
  params: Record<string, string | undefined>
  body: unknown
  /** `not applied`: only on a reconciliation line (the answer was lost; a read showed nothing changed). */
  outcome: 'applied' | 'refused' | 'failed' | 'unknown' | 'not sent' | 'not applied'
  /** The line reports a reconciliation (what a read found after the answer was lost), not a request. */
  reconciled?: boolean
  status?: number
  requestId?: string
  message?: string
  data?: unknown
  note?: CallInput['auditNote']
}

export interface ClientOptions {
  target: ServiceTarget
  /** Whole-call budget including retries; expiry is exit 7. */
  timeoutMs?: number
  /** Receives the redacted `--verbose` trace. */
  trace?: (text: string) => void
  /** Receives warnings (a response that does not match its schema). */
  warn?: (text: string) => void
  dryRun?: boolean
  retry?: Partial<RetryPolicy>
  /** Called once per attempt at an `audited` operation, whatever its outcome. */
  onAudited?: (record: AttemptRecord) => Promise<void> | void
  /** Runs before every call to a row, after its input is checked: the CLI's consent to changes. Throw to send nothing. */
  beforeSend?: (op: Operation, input: CallInput) => Promise<void>
}

/** Thrown instead of sending under `--dry-run`; BaseCommand prints it and exits 0. */
export class DryRunRequest {
  constructor(
    readonly curl: string,
    readonly request: {method: string; url: string; headers: Record<string, string>; body?: unknown},
  ) {}
}

const DEFAULT_RETRY: RetryPolicy = {maxRetries: 3, minTimeoutMs: 250, maxTimeoutMs: 10_000}
const RETRY_STATUS = [429, 502, 503, 504]
const RETRY_ERRORS = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'ENETUNREACH', 'EHOSTUNREACH']
/** Errors raised before a single byte left: the request cannot have been applied. */
const NOT_SENT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])

/** One typed HTTP client for one service, as one caller: turns operations into requests and answers into data or ApiError. */
export class ServiceClient {
  constructor(private readonly options: ClientOptions) {
    const {publicKey, secretKey, session} = options.target
    for (const secret of [publicKey, secretKey, session]) registerSecret(secret)
  }

  get target(): ServiceTarget {
    return this.options.target
  }

  async call<O extends Operation>(op: O, input: CallInput = {}): Promise<ApiResponse<ResultOf<O>>> {
    let body = input.body
    if (op.body) {
      const parsed = op.body.safeParse(body ?? {})
      if (!parsed.success) throw new UsageError(`Invalid request: ${describeIssues(parsed.error.issues)}`)
      body = parsed.data
    }

    await this.options.beforeSend?.(op, input)

    const request = {
      method: op.method,
      path: expandPath(op.path, input.params),
      query: input.query,
      body,
      headers: input.headers,
      auth: op.auth,
      idempotent: op.idempotent,
      operationId: op.id,
    }
    if (!op.audited || !this.options.onAudited || this.options.dryRun) {
      const response = await this.send(request)
      return {...response, data: this.parseResult(op, response.data) as ResultOf<O>}
    }

    const record = {operation: op, params: input.params ?? {}, body, note: input.auditNote}
    try {
      const response = await this.send(request)
      const data = this.parseResult(op, response.data) as ResultOf<O>
      await this.options.onAudited({...record, data, outcome: 'applied', requestId: response.requestId, status: response.status})
      return {...response, data}
    } catch (error) {
      await this.options.onAudited({...record, ...attemptOutcome(error)})
      throw error
    }
  }

  /**
   * Reports a fact about an audited operation that no request carries: what a reconciliation
   * found after the answer to a void or refund was lost. Goes to the same `onAudited` hook.
   */
  async recordAudit(record: AttemptRecord): Promise<void> {
    if (!record.operation.audited || !this.options.onAudited || this.options.dryRun) return
    await this.options.onAudited(record)
  }

  /** A request outside the table (`opsctl api`). Retried only when the method is safe. */
  async raw(method: HttpMethod, path: string, input: Omit<CallInput, 'params'> & {auth: AuthKind}): Promise<ApiResponse<unknown>> {
    return this.send({
      method,
      path,
      query: input.query,
      body: input.body,
      headers: input.headers,
      auth: input.auth,
      idempotent: method === 'GET',
      operationId: `${method} ${path}`,
    })
  }

  private parseResult(op: Operation, data: unknown): unknown {
    if (!op.response || data === undefined) return data
    const parsed = op.response.safeParse(data)
    if (parsed.success) return parsed.data
    this.options.warn?.(
      `Warning: the ${op.id} answer did not match the expected shape (${describeIssues(parsed.error.issues)}); showing it as received`,
    )
    return data
  }

  private async send(req: {
    method: HttpMethod
    path: string
    query?: Record<string, QueryValue>
    body?: unknown
    headers?: Record<string, string>
    auth: AuthKind
    idempotent: boolean
    operationId: string
  }): Promise<ApiResponse<unknown>> {
    const {target} = this.options
    const url = buildUrl(target.baseUrl, req.path, req.query)
    const auth = authFor(target, req.auth)
    registerBodySecrets(req.body)
    registerHeaderSecrets(req.headers ?? {})
    // A credential is a key or session, a password or card number in the body, or a caller's own auth header.
    const callerCredential = Object.keys(req.headers ?? {}).some((k) => SECRET_HEADERS.has(k.toLowerCase()))
    assertSafeTransport(url, auth.secrets.length > 0 || hasSecretField(req.body) || callerCredential)

    const payload = req.body === undefined ? undefined : JSON.stringify(req.body)
    // Header names in lower case, so that the auth headers replace a caller's `Authorization`
    // instead of travelling next to it.
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...(payload === undefined ? {} : {'content-type': 'application/json'}),
      ...Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    }

    if (this.options.dryRun) {
      const shown = payload === undefined ? undefined : JSON.stringify(redactBody(req.body))
      // The curl shows what would be sent: no header the auth replaces, and no secret header value.
      const curlHeaders = redactHeaders(Object.fromEntries(Object.entries(headers).filter(([k]) => !(k in auth.headers))))
      throw new DryRunRequest(toCurl(req.method, url.href, curlHeaders, auth.curlArgs, shown), {
        method: req.method,
        url: url.href,
        headers: redactHeaders({...headers, ...auth.headers}),
        ...(req.body === undefined ? {} : {body: redactBody(req.body)}),
      })
    }

    const allHeaders = {...headers, ...auth.headers}
    this.trace(`> ${req.method} ${redactUrl(url)}`, allHeaders, req.body)

    const started = performance.now()
    const timeoutMs = this.options.timeoutMs ?? 30_000
    let res: Dispatcher.ResponseData
    try {
      const dispatcher = await this.dispatcherFor(req.idempotent, req.method, Date.now() + timeoutMs)
      res = await dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: allHeaders,
        body: payload,
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      throw this.networkError(error, req, url, auth.secrets)
    }

    let text: string
    try {
      text = await res.body.text()
    } catch (error) {
      throw this.networkError(error, req, url, auth.secrets)
    }

    // A session the answer sets (sign-in, createUser) is a secret from now on, before anything shows the answer.
    registerHeaderSecrets({'set-cookie': res.headers['set-cookie']})
    const durationMs = Math.round(performance.now() - started)
    const data = parseJson(text)
    const requestId = requestIdFrom(res.headers, data)
    this.trace(
      `< ${res.statusCode} ${req.method} ${redactUrl(url)} (${durationMs} ms${requestId ? `, request id ${requestId}` : ''})`,
      res.headers,
      data ?? (text || undefined),
    )

    if (res.statusCode >= 400) {
      // Scrubbed before it is parsed: the message of a text body is its first line cut at 200
      // characters, and a cut through a credential would leave a piece no scrubber recognises.
      const clean = scrubSecrets(text, auth.secrets)
      const parsed = parseErrorBody(parseJson(clean), clean)
      const message = scrubSecrets(parsed.message ?? `HTTP ${res.statusCode}`, auth.secrets)
      throw new ApiError({
        status: res.statusCode,
        code: parsed.code === undefined ? undefined : scrubSecrets(parsed.code),
        message,
        fieldErrors: parsed.fieldErrors.map((f) => ({field: scrubSecrets(f.field), description: scrubSecrets(f.description)})),
        requestId: scrubSecrets(requestId ?? parsed.reference ?? '') || undefined,
        service: target.service,
        operationId: req.operationId,
        exitCode: parsed.code && REFUSAL_CODES.has(parsed.code) ? ExitCode.Refused : undefined,
      })
    }

    return {data: text === '' ? undefined : (data ?? text), status: res.statusCode, headers: res.headers, requestId, durationMs}
  }

  private async dispatcherFor(idempotent: boolean, method: HttpMethod, deadline: number): Promise<Dispatcher> {
    const base = await getDispatcher()
    if (!idempotent) return base
    const {interceptors} = await import('undici')
    const policy = {...DEFAULT_RETRY, ...this.options.retry}
    return base.compose(
      interceptors.retry({
        maxRetries: policy.maxRetries,
        minTimeout: policy.minTimeoutMs,
        maxTimeout: policy.maxTimeoutMs,
        timeoutFactor: 2,
        retryAfter: true,
        throwOnError: false,
        methods: [method],
        statusCodes: RETRY_STATUS,
        errorCodes: RETRY_ERRORS,
        retry: retryWithin(deadline, policy, RETRY_STATUS, RETRY_ERRORS),
      }),
    )
  }

  private networkError(error: unknown, req: {idempotent: boolean; operationId: string}, url: URL, secrets: string[]): NetworkError {
    const err = error as {code?: string; name?: string; message?: string; cause?: {code?: string}}
    const code = err?.code ?? err?.cause?.code
    const timedOut = err?.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
    const seconds = Math.round((this.options.timeoutMs ?? 30_000) / 100) / 10
    const what = timedOut ? `timed out after ${seconds} s` : describeNetworkCode(code, err?.message)
    const outcomeUnknown = !req.idempotent && !NOT_SENT_ERRORS.has(code ?? '')
    // A change that may have reached the server is never retried; the user must know to look before repeating it.
    const unknown = outcomeUnknown ? '; the request may have been applied' : ''
    const message = scrubSecrets(`${req.operationId}: ${url.origin} ${what}${unknown}`, secrets)
    return new NetworkError(message, error, outcomeUnknown, [
      ...(outcomeUnknown ? ['Check whether it took effect before sending it again (it was not retried)'] : []),
      timedOut
        ? 'Raise the limit with --timeout <seconds>'
        : `Check that ${url.origin} is reachable (for the sandbox: start it)`,
    ])
  }

  private trace(title: string, headers: Record<string, string | string[] | undefined>, body: unknown): void {
    if (!this.options.trace) return
    const lines = [title]
    for (const [k, v] of Object.entries(redactHeaders(headers))) lines.push(`  ${k}: ${v}`)
    // Scrubbed before the cut, for the same reason as error messages.
    if (body !== undefined) lines.push(`  ${typeof body === 'string' ? scrubSecrets(body).slice(0, 2000) : JSON.stringify(redactBody(body))}`)
    // A server that echoes a credential in a text body or an odd header: every registered secret, in every form.
    this.options.trace(scrubSecrets(lines.join('\n')))
  }
}

function attemptOutcome(error: unknown): Pick<AttemptRecord, 'message' | 'outcome' | 'requestId' | 'status'> {
  if (error instanceof ApiError) {
    return {
      message: error.serverMessage,
      outcome: error.exitCode === ExitCode.Refused ? 'refused' : 'failed',
      requestId: error.requestId,
      status: error.status,
    }
  }

  if (error instanceof NetworkError) return {message: error.message, outcome: error.outcomeUnknown ? 'unknown' : 'not sent'}
  return {message: (error as Error).message, outcome: 'not sent'}
}

function parseJson(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function describeNetworkCode(code: string | undefined, message: string | undefined): string {
  switch (code) {
    case 'ECONNREFUSED': {
      return 'refused the connection'
    }

    case 'ECONNRESET':
    case 'UND_ERR_SOCKET': {
      return 'closed the connection without answering'
    }

    case 'ENOTFOUND':
    case 'EAI_AGAIN': {
      return 'could not be resolved'
    }

    case 'UND_ERR_CONNECT_TIMEOUT': {
      return 'did not accept the connection in time'
    }

    default: {
      return `could not be reached (${code ?? message ?? 'network error'})`
    }
  }
}

export function describeIssues(issues: readonly {path: readonly PropertyKey[]; message: string}[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ')
}
