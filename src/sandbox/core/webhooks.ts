import type {LookupFunction} from 'node:net'

import {HttpTransport} from '../../http/http-transport.js'
import {failureCode} from '../../http/network-error.js'
import {CALLBACK_REFUSED} from './callback-targets.js'

/** What one attempt of a delivery got: the receiver's status, or why there was none. */
export interface AttemptResult {
  /** HTTP status; null when the connection failed */
  status: null | number
  error?: string
  durationMs: number
  /** not sent: the callback's address is refused now (callback-targets.ts); never retried */
  refused?: true
}

/** The user agent of deliveries: the service's, as a receiver of the real one sees a service (never the CLI's). */
export const WEBHOOK_USER_AGENT = 'Checkout-Webhooks/1.0 (sandbox)'
/** The headers a receiver deduplicates on: the same delivery id on every attempt of a delivery (and on a resend), and the attempt's number. */
export const DELIVERY_ID_HEADER = 'x-checkout-delivery-id'
export const DELIVERY_ATTEMPT_HEADER = 'x-checkout-delivery-attempt'
/** Per attempt */
const ATTEMPT_TIMEOUT_MS = 5000

/**
 * Sends attempts of webhook deliveries: one POST of the delivery's stored body (the exact bytes,
 * so a retry or a resend is byte-identical), with the delivery's id and the attempt's number.
 * Nothing here retries: when the next attempt is due is the tenant's time's business
 * (due-deliveries.ts). Its own connections: deliveries come from the emulator, not from a CLI user
 * behind a proxy.
 */
export class WebhookSender {
  private readonly pending = new Set<Promise<unknown>>()
  private readonly transport: HttpTransport

  constructor(
    /** why a URL is not called now (callback-targets.ts): checked before every attempt, after resolving its host */
    private readonly refusal: (url: string) => Promise<string | undefined> = async () => undefined,
    /** how its connections resolve a name: to an address the same rules allow (callback-targets.ts's guardedLookup) */
    lookup?: LookupFunction,
  ) {
    this.transport = new HttpTransport({lookup, pool: 'private'})
  }

  async attempt(delivery: {id: string; attempt: number; event: string; url: string; body: string}): Promise<AttemptResult> {
    const started = performance.now()
    const refused = await this.refusal(delivery.url)
    if (refused) return {durationMs: Math.round(performance.now() - started), error: `refused: ${refused}`, refused: true, status: null}
    const job = this.transport
      .send({
        method: 'POST',
        url: new URL(delivery.url),
        label: `${delivery.event} webhook`,
        headers: {
          'user-agent': WEBHOOK_USER_AGENT,
          'x-checkout-event': delivery.event,
          [DELIVERY_ID_HEADER]: delivery.id,
          [DELIVERY_ATTEMPT_HEADER]: String(delivery.attempt),
        },
        body: {contentType: 'application/json', raw: delivery.body},
        idempotent: false,
        timeoutMs: ATTEMPT_TIMEOUT_MS,
      })
      .then(
        (res): AttemptResult => ({durationMs: Math.round(performance.now() - started), status: res.status}),
        (error: unknown): AttemptResult => {
          const durationMs = Math.round(performance.now() - started)
          // refused by the connection's resolver (a name that now resolves where the rules forbid): as refused before it
          const refusal = refusedConnection(error)
          if (refusal) return {durationMs, error: refusal, refused: true, status: null}
          return {durationMs, error: failureCode(error) ?? (error as Error).message, status: null}
        },
      )
    this.pending.add(job)
    try {
      return await job
    } finally {
      this.pending.delete(job)
    }
  }

  /** Waits for attempts under way (on shutdown), then closes the connections. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.pending)
    await this.transport.close()
  }
}

/** The reason of a connection the deliveries' resolver refused, found in the error's causes. */
function refusedConnection(error: unknown): string | undefined {
  for (let depth = 0, e = error as undefined | {cause?: unknown; code?: unknown; message?: unknown}; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === CALLBACK_REFUSED && typeof e.message === 'string') return e.message
  }

  return undefined
}
