import type {Dispatcher} from 'undici'

import type {InboundResponse, OutboundRequest, RetryOverride, Transport, TransportOptions} from './transport.js'

import {escapeControlChars} from '../control-chars.js'
import {getDispatcher} from './dispatcher.js'
import {parseJson} from './json.js'
import {networkError} from './network-error.js'
import {prepareRequest, shownBody} from './prepare.js'
import {maskFields, maskPatientStrings, redactBody, redactHeaders, redactUrl, scrubSecrets, sentPatientData} from './redact.js'
import {type RetryPolicy, retryWithin} from './retry.js'
import {registerHeaderSecrets} from './secrets/sources.js'
import {requestIdFrom} from './services.js'
import {isLoopback} from './url.js'

const DEFAULT_RETRY: RetryPolicy = {maxRetries: 3, minTimeoutMs: 250, maxTimeoutMs: 10_000}
const RETRY_STATUS = [429, 502, 503, 504]
const RETRY_ERRORS = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'ENETUNREACH', 'EHOSTUNREACH']
const DEFAULT_TIMEOUT_MS = 30_000

export interface HttpTransportOptions extends TransportOptions {
  /**
   * `private`: connections of its own, never the process-wide (proxied, test-injected) dispatcher:
   * for the sandbox's webhook deliveries, which go from the emulator, not from the CLI's user.
   */
  pool?: 'private' | 'shared'
}

/**
 * Sends over undici: the user-agent, the timeout (retries included), retries of idempotent
 * requests within it, the redacted `--verbose` trace, and network failures as NetworkError.
 * An HTTP error status is an answer, returned as any other: what it means is the caller's to say.
 */
export class HttpTransport implements Transport {
  readonly kind = 'send'
  private own?: Dispatcher

  constructor(private readonly options: HttpTransportOptions = {}) {}

  /** Closes the connections of a private pool. */
  async close(): Promise<void> {
    const own = this.own
    this.own = undefined
    await own?.close().catch(() => {})
  }

  async send(req: OutboundRequest): Promise<InboundResponse> {
    const prepared = prepareRequest(req)
    const masked = this.options.traceMasked
    this.trace(() => `> ${req.method} ${redactUrl(req.url, masked)}`, prepared.headers, () => maskFields(shownBody(req.body), masked))

    const started = performance.now()
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    let res: Dispatcher.ResponseData
    let text: string
    try {
      const dispatcher = await this.dispatcherFor(req, Date.now() + timeoutMs)
      res = await dispatcher.request({
        origin: req.url.origin,
        path: req.url.pathname + req.url.search,
        method: req.method,
        headers: prepared.headers,
        body: prepared.payload,
        signal: AbortSignal.timeout(timeoutMs),
        ...(req.attemptTimeoutMs === undefined ? {} : {bodyTimeout: req.attemptTimeoutMs, headersTimeout: req.attemptTimeoutMs}),
      })
      text = await res.body.text()
    } catch (error) {
      throw networkError(error, {idempotent: req.idempotent, label: req.label, timeoutMs, url: req.url}, prepared.secrets)
    }

    // A session the answer sets (sign-in, createUser) is a secret from now on, before anything shows the answer.
    registerHeaderSecrets({'set-cookie': res.headers['set-cookie']})
    const durationMs = Math.round(performance.now() - started)
    if (this.options.trace) {
      const data = parseJson(text)
      const requestId = requestIdFrom(res.headers, data)
      // What the server says back about what was sent ("An account with email ... already exists") is masked too.
      const known = masked ? sentPatientData(req, masked) : undefined
      const shown = (body: unknown) => (known ? maskPatientStrings(body, known) : body)
      this.trace(
        () => `< ${res.statusCode} ${req.method} ${redactUrl(req.url, masked)} (${durationMs} ms${requestId ? `, request id ${requestId}` : ''})`,
        res.headers,
        () => (data === undefined ? (text ? shown(text) : undefined) : shown(maskFields(redactBody(data), masked))),
      )
    }

    return {durationMs, headers: res.headers, status: res.statusCode, text}
  }

  private async dispatcherFor(req: OutboundRequest, deadline: number): Promise<Dispatcher> {
    const base = await this.base()
    if (!req.idempotent) return base
    const {interceptors} = await import('./undici.js')
    const override: RetryOverride = req.retry ?? {}
    const policy = {...DEFAULT_RETRY, ...this.options.retry, ...definedOnly(override)}
    const statusCodes = override.statusCodes ?? RETRY_STATUS
    // Nothing listening on this machine's port will not start listening in the next second: say so at once.
    const errorCodes = override.errorCodes ?? (isLoopback(req.url.hostname) ? RETRY_ERRORS.filter((c) => c !== 'ECONNREFUSED') : RETRY_ERRORS)
    return base.compose(
      interceptors.retry({
        maxRetries: policy.maxRetries,
        minTimeout: policy.minTimeoutMs,
        maxTimeout: policy.maxTimeoutMs,
        timeoutFactor: 2,
        retryAfter: true,
        throwOnError: false,
        methods: [req.method],
        statusCodes,
        errorCodes,
        retry: retryWithin(deadline, policy, statusCodes, errorCodes, (failure) => {
          override.onRetry?.(failure)
          this.options.trace?.(`~ ${req.label}: ${failure.status ?? failure.code}, retrying in ${failure.waitMs} ms`)
        }),
      }),
    )
  }

  private async base(): Promise<Dispatcher> {
    if (this.options.pool !== 'private') return getDispatcher()
    if (!this.own) {
      const {newAgent} = await import('./undici-pool.js')
      this.own = newAgent()
    }

    return this.own
  }

  /** Title and body are computed only when tracing: masking a page of 50 events per request is not free. */
  private trace(title: () => string, headers: Record<string, string | string[] | undefined>, shown: () => unknown): void {
    if (!this.options.trace) return
    const body = shown()
    const lines = [title()]
    for (const [k, v] of Object.entries(redactHeaders(headers))) lines.push(`  ${k}: ${v}`)
    // Scrubbed before the cut: a cut through a credential would leave a piece no scrubber recognises.
    if (body !== undefined) lines.push(`  ${typeof body === 'string' ? scrubSecrets(body).slice(0, 2000) : JSON.stringify(body)}`)
    // A server that echoes a credential in a text body or an odd header: every registered secret, in every form.
    // Each line is the server's text: a newline in a text body is shown, it does not start a line of the trace.
    this.options.trace(lines.map((line) => escapeControlChars(scrubSecrets(line))).join('\n'))
  }
}

function definedOnly(override: RetryOverride): Partial<RetryPolicy> {
  const out: Partial<RetryPolicy> = {}
  if (override.maxRetries !== undefined) out.maxRetries = override.maxRetries
  if (override.minTimeoutMs !== undefined) out.minTimeoutMs = override.minTimeoutMs
  if (override.maxTimeoutMs !== undefined) out.maxTimeoutMs = override.maxTimeoutMs
  return out
}
