/**
 * The one way opsctl speaks HTTP: every outbound request (service calls, the hosted-page buyer,
 * sandbox control calls, webhook forwarding, the sandbox's own webhook deliveries) is an
 * `OutboundRequest` given to a `Transport`. `--dry-run` is the transport that records and prints
 * instead of sending, so whatever sends honours it without a check of its own.
 */
import type {HttpMethod} from './operation.js'
import type {AuthParts} from './services.js'


export type OutboundBody = {contentType: string; raw: Buffer | string} | {form: Record<string, string>} | {json: unknown}

export interface OutboundRequest {
  method: HttpMethod
  url: URL
  /** What the request is, in errors and traces: an operation id, `payment page`, `sandbox clock`. */
  label: string
  /** Headers without credentials; names in any case. */
  headers?: Record<string, string>
  /** Credential headers, and how a dry run shows them (`$OPSCTL_*` references). */
  auth?: AuthParts
  body?: OutboundBody
  /**
   * Safe to repeat: retried on transient failures. A request that is not, and whose answer was
   * lost after it may have arrived, fails with "the request may have been applied".
   */
  idempotent: boolean
  /** `accept` header; JSON unless said otherwise */
  accept?: string
  /** This request's own retry rules (the sandbox's webhook deliveries retry until a 2xx). */
  retry?: RetryOverride
  /** Limit of each attempt (headers and body), under the whole-call timeout. */
  attemptTimeoutMs?: number
  /** Whole-call limit for this request, retries included, instead of the transport's. */
  timeoutMs?: number
  /** A larger limit of answer body for this request than the transport's (a sandbox's whole state): the larger of the two applies. */
  maxBodyBytes?: number
}

/** How often and how long apart an idempotent request is tried again (./retry.ts applies it). */
export interface RetryPolicy {
  maxRetries: number
  minTimeoutMs: number
  maxTimeoutMs: number
}

export interface RetryOverride extends Partial<RetryPolicy> {
  statusCodes?: number[]
  errorCodes?: string[]
  /** Told about each failed attempt that will be retried, and how long before the next one. */
  onRetry?: (failure: {code?: string; status?: number; waitMs: number}) => void
}

export interface InboundResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  durationMs: number
}

export interface Transport {
  /** `dry-run` records and stops the command; `send` sends. */
  readonly kind: 'dry-run' | 'send'
  send(request: OutboundRequest): Promise<InboundResponse>
}

export interface TransportOptions {
  /** `--dry-run`: print the request as curl and send nothing. */
  dryRun?: boolean
  /** Whole-call budget including retries; expiry is exit 7. */
  timeoutMs?: number
  /** The most bytes of each answer's body read (--max-body); more is exit 6 (./answer-limit.ts). */
  maxBodyBytes?: number
  /** Receives the redacted `--verbose` trace. */
  trace?: (text: string) => void
  /** Fields whose values the trace masks (patient data; redact.ts's `maskFields`). */
  traceMasked?: ReadonlySet<string>
  retry?: Partial<RetryPolicy>
}
