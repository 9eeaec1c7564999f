import type {LookupFunction} from 'node:net'

import type {Answer, Exchange} from './exchange.js'
import type {InboundResponse, OutboundRequest, Transport, TransportOptions} from './transport.js'

import {escapeControlChars} from '../control-chars.js'
import {ANSWER_TOO_LARGE, AnswerTooLargeError, DEFAULT_MAX_BODY_BYTES} from './answer-limit.js'
import {Connections, sharedConnections} from './connections.js'
import {parseJson} from './json.js'
import {networkError} from './network-error.js'
import {prepareRequest, shownBody} from './prepare.js'
import {maskFields, maskPatientStrings, redactBody, redactHeaders, redactUrl, scrubSecrets, sentPatientData} from './redact.js'
import {type RetryPolicy, type RetryRules, withRetries} from './retry.js'
import {registerHeaderSecrets} from './secrets/sources.js'
import {requestIdFrom} from './services.js'
import {isLoopback} from './url.js'

const DEFAULT_RETRY: RetryPolicy = {maxRetries: 3, minTimeoutMs: 250, maxTimeoutMs: 10_000}
const RETRY_STATUS = [429, 502, 503, 504]
const RETRY_ERRORS = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'ENETUNREACH', 'EHOSTUNREACH']
const DEFAULT_TIMEOUT_MS = 30_000

export interface HttpTransportOptions extends TransportOptions {
  /**
   * `private`: connections of its own, never the process-wide (proxied, test-injected) ones:
   * for the sandbox's webhook deliveries, which go from the emulator, not from the CLI's user.
   */
  pool?: 'private' | 'shared'
  /** how a private pool resolves names (./connections.ts) */
  lookup?: LookupFunction
}

/**
 * Sends for real, with every rule in one place whatever carries the bytes (node:http for plain
 * http, undici for https and proxies: ./connections.ts): the user-agent and the credential
 * checks (./prepare.ts), the timeout (retries included) and each attempt's, retries of idempotent
 * requests within it (./retry.ts), the redacted `--verbose` trace, and network failures as
 * NetworkError (./network-error.ts). An HTTP error status is an answer, returned as any other:
 * what it means is the caller's to say.
 */
export class HttpTransport implements Transport {
  readonly kind = 'send'
  private readonly connections: Connections

  constructor(private readonly options: HttpTransportOptions = {}) {
    this.connections = options.pool === 'private' ? new Connections(false, options.lookup) : sharedConnections
  }

  /** Closes the connections of a private pool. */
  async close(): Promise<void> {
    if (this.connections !== sharedConnections) await this.connections.close()
  }

  async send(req: OutboundRequest): Promise<InboundResponse> {
    const prepared = prepareRequest(req)
    const masked = this.options.traceMasked
    this.trace(() => `> ${req.method} ${redactUrl(req.url, masked)}`, prepared.headers, () => maskFields(shownBody(req.body), masked))

    // hrtime, not performance.now(): Node loads the global performance object (perf_hooks) on first use, ~0.8 ms
    const started = process.hrtime.bigint()
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const deadline = Date.now() + timeoutMs
    const whole = AbortSignal.timeout(timeoutMs)
    const maxBodyBytes = Math.max(req.maxBodyBytes ?? 0, this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)
    const attempt = (): Promise<Answer> => {
      const exchange: Exchange = {
        headers: prepared.headers,
        maxBodyBytes,
        method: req.method,
        payload: prepared.payload,
        signal: req.attemptTimeoutMs === undefined ? whole : AbortSignal.any([whole, AbortSignal.timeout(req.attemptTimeoutMs)]),
        url: req.url,
      }
      return this.connections.send(exchange)
    }

    let res: Answer
    try {
      res = req.idempotent
        ? await withRetries(attempt, this.retryRules(req), deadline, (failure) => {
            req.retry?.onRetry?.(failure)
            this.options.trace?.(`~ ${req.label}: ${failure.status ?? failure.code}, retrying in ${failure.waitMs} ms`)
          })
        : await attempt()
    } catch (error) {
      if ((error as {code?: string})?.code === ANSWER_TOO_LARGE) {
        throw new AnswerTooLargeError(`${req.label}: the answer from ${req.url.origin}`, maxBodyBytes, !req.idempotent)
      }

      throw networkError(error, {idempotent: req.idempotent, label: req.label, timeoutMs, url: req.url}, prepared.secrets)
    }

    const {text} = res
    // A session the answer sets (sign-in, createUser) is a secret from now on, before anything shows the answer.
    registerHeaderSecrets({'set-cookie': res.headers['set-cookie']})
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6)
    if (this.options.trace) {
      const data = parseJson(text)
      const requestId = requestIdFrom(res.headers, data)
      // What the server says back about what was sent ("An account with email ... already exists") is masked too.
      const known = masked ? sentPatientData(req, masked) : undefined
      const shown = (body: unknown) => (known ? maskPatientStrings(body, known) : body)
      this.trace(
        () => `< ${res.status} ${req.method} ${redactUrl(req.url, masked)} (${durationMs} ms${requestId ? `, request id ${requestId}` : ''})`,
        res.headers,
        () => (data === undefined ? (text ? shown(text) : undefined) : shown(maskFields(redactBody(data), masked))),
      )
    }

    return {durationMs, headers: res.headers, status: res.status, text}
  }

  /** What an idempotent request retries: the request's own rules over the transport's over the defaults. */
  private retryRules(req: OutboundRequest): RetryRules {
    const override = req.retry ?? {}
    const policy: RetryPolicy = {...DEFAULT_RETRY, ...this.options.retry}
    if (override.maxRetries !== undefined) policy.maxRetries = override.maxRetries
    if (override.minTimeoutMs !== undefined) policy.minTimeoutMs = override.minTimeoutMs
    if (override.maxTimeoutMs !== undefined) policy.maxTimeoutMs = override.maxTimeoutMs
    // Nothing listening on this machine's port will not start listening in the next second: say so at once.
    const errorCodes = override.errorCodes ?? (isLoopback(req.url.hostname) ? RETRY_ERRORS.filter((c) => c !== 'ECONNREFUSED') : RETRY_ERRORS)
    return {...policy, errorCodes, statusCodes: override.statusCodes ?? RETRY_STATUS}
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
