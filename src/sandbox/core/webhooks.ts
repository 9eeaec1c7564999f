import type {Dispatcher} from 'undici'

import type {Clock, SandboxEvent} from '../types.js'

export interface DeliveryAttempt {
  event: SandboxEvent['type']
  checkoutId: string
  url: string
  attempt: number
  /** HTTP status of this attempt; null when the connection failed */
  status: null | number
  error?: string
  /** sandbox clock */
  at: string
  durationMs: number
}

export interface DeliveryPolicy {
  /** attempts in all, the first included */
  maxAttempts: number
  /** delay before the second attempt; doubled each time after */
  firstDelayMs: number
  /** per attempt */
  timeoutMs: number
}

/** Short delays: on the sandbox a receiver that recovers is served again within a second. */
export const SANDBOX_DELIVERY: DeliveryPolicy = {firstDelayMs: 150, maxAttempts: 4, timeoutMs: 5000}

const NOT_2XX = Array.from({length: 300}, (_, i) => i + 300)
const CONNECTION_ERRORS = [
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]

/**
 * Delivers checkout events to the callback URL registered for them: POST of the checkout record as
 * JSON, retried until a 2xx (undici's retry interceptor, with a retry hook that records each failed
 * attempt and waits with backoff), up to `maxAttempts`. Every attempt is kept for
 * `GET /__sandbox/webhook-deliveries`. Delivery runs in the background: it never holds up the
 * buyer's redirect.
 */
export class WebhookDeliveries {
  readonly attempts: DeliveryAttempt[] = []
  private readonly pending = new Set<Promise<void>>()
  private agent?: Dispatcher

  constructor(
    private readonly clock: Clock,
    private readonly policy: DeliveryPolicy = SANDBOX_DELIVERY,
  ) {}

  /** Starts a delivery and returns at once. */
  deliver(event: SandboxEvent, url: string): void {
    const job = this.run(event, url).finally(() => this.pending.delete(job))
    this.pending.add(job)
  }

  /** Waits for deliveries under way (on shutdown). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.pending)
    await this.agent?.close()
  }

  private async run(event: SandboxEvent, url: string): Promise<void> {
    const {Agent, interceptors} = await import('undici')
    this.agent ??= new Agent({
      bodyTimeout: this.policy.timeoutMs,
      headersTimeout: this.policy.timeoutMs,
      connectTimeout: this.policy.timeoutMs,
    })
    let attempt = 1
    let started = performance.now()
    const record = (status: null | number, error?: string) => {
      this.attempts.push({
        at: this.clock.now().toISOString(),
        attempt,
        checkoutId: event.checkoutId,
        durationMs: Math.round(performance.now() - started),
        event: event.type,
        status,
        url,
        ...(error ? {error} : {}),
      })
      if (this.attempts.length > 5000) this.attempts.shift()
    }

    const dispatcher = this.agent.compose(
      interceptors.retry({
        errorCodes: CONNECTION_ERRORS,
        maxRetries: this.policy.maxAttempts - 1,
        methods: ['POST'],
        retry: (err, _context, callback) => {
          const failure = err as Error & {code?: string; statusCode?: number}
          if (attempt >= this.policy.maxAttempts) return callback(err)
          record(failure.statusCode ?? null, failure.statusCode ? undefined : (failure.code ?? failure.message))
          const delay = this.policy.firstDelayMs * 2 ** (attempt - 1)
          attempt++
          setTimeout(() => {
            started = performance.now()
            callback(null)
          }, delay)
        },
        statusCodes: NOT_2XX,
        throwOnError: false,
      }),
    )
    const {origin, pathname, search} = new URL(url)
    try {
      const res = await dispatcher.request({
        body: JSON.stringify(event.payload),
        headers: {'content-type': 'application/json', 'user-agent': 'opsctl-sandbox-webhooks', 'x-checkout-event': event.type},
        method: 'POST',
        origin,
        path: pathname + search,
      })
      await res.body.dump()
      record(res.statusCode)
    } catch (error) {
      const failure = error as Error & {code?: string}
      record(null, failure.code ?? failure.message)
    }
  }
}
