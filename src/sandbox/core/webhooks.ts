import type {Clock, SandboxEvent} from '../types.js'

import {HttpTransport} from '../../http/http-transport.js'
import {failureCode} from '../../http/network-error.js'

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
  // An attempt that outlived its own limit (failureCode's name for it)
  'timeout',
  'UND_ERR_CONNECT_TIMEOUT',
]

/**
 * Delivers checkout events to the callback URL registered for them: POST of the checkout record as
 * JSON, retried until a 2xx (the HTTP layer's retry, told to retry every non-2xx and to report each
 * failed attempt, which is recorded), with backoff, up to `maxAttempts`. Its own connections:
 * deliveries come from the emulator, not from a CLI user behind a proxy. Every attempt is kept for
 * `GET /__sandbox/webhook-deliveries`. Delivery runs in the background: it never holds up the
 * buyer's redirect.
 */
export class WebhookDeliveries {
  readonly attempts: DeliveryAttempt[] = []
  private readonly pending = new Set<Promise<void>>()
  private readonly transport = new HttpTransport({pool: 'private'})

  constructor(
    private readonly clock: Clock,
    private readonly policy: DeliveryPolicy = SANDBOX_DELIVERY,
    /** why a URL is not called now (callback-targets.ts): the delivery is given up, recorded with the reason */
    private readonly refusal: (url: string) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** Starts a delivery and returns at once; `settled` runs once it is delivered or given up. */
  deliver(event: SandboxEvent, url: string, settled?: () => void): void {
    const job = this.run(event, url)
      .then(settled)
      .finally(() => this.pending.delete(job))
    this.pending.add(job)
  }

  /** Waits for deliveries under way (on shutdown). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.pending)
    await this.transport.close()
  }

  private async run(event: SandboxEvent, url: string): Promise<void> {
    const {firstDelayMs, maxAttempts, timeoutMs} = this.policy
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

    const refused = await this.refusal(url)
    if (refused) return record(null, `refused: ${refused}`)
    try {
      const res = await this.transport.send({
        method: 'POST',
        url: new URL(url),
        label: `${event.type} webhook`,
        headers: {'x-checkout-event': event.type},
        body: {json: event.payload},
        // Receivers take an event more than once (the spec's delivery is at least once).
        idempotent: true,
        attemptTimeoutMs: timeoutMs,
        timeoutMs: maxAttempts * timeoutMs + firstDelayMs * 2 ** maxAttempts,
        retry: {
          errorCodes: CONNECTION_ERRORS,
          maxRetries: maxAttempts - 1,
          maxTimeoutMs: firstDelayMs * 2 ** maxAttempts,
          minTimeoutMs: firstDelayMs,
          onRetry: ({code, status, waitMs}) => {
            record(status ?? null, status ? undefined : code)
            attempt++
            started = performance.now() + waitMs
          },
          statusCodes: NOT_2XX,
        },
      })
      record(res.status)
    } catch (error) {
      record(null, failureCode(error) ?? (error as Error).message)
    }
  }
}
