/**
 * `opsctl webhook listen`: a loopback receiver for checkout webhooks, and the bookkeeping of
 * `--register` (point the three webhooks at the receiver, put back exactly what was there on exit).
 *
 * node:http serves the one endpoint (no router needed: every POST, whatever its path, is an event).
 * This module is loaded only by `webhook listen` (lazily), never at start.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'

import type {ServiceClient} from '../../http/client.js'

import {escapeControlChars} from '../../control-chars.js'
import {ApiError, ExitCode, NetworkError, type NextStep, OpsError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {failureCode} from '../../http/network-error.js'
import {type Transport} from '../../http/transport.js'
import {checkoutOps, WEBHOOK_EVENTS, type WebhookEvent, type WebhookRecord} from '../../services/checkout/operations.js'

/** One delivery as the listener saw it. Fields the payload does not carry are null. */
export interface ReceivedEvent {
  /** when it arrived, ISO 8601 UTC: this machine's clock, or a sandbox's (`webhook listen` on a sandbox profile) */
  time: string
  event: string
  checkoutId: null | string
  amount: null | string
  currency: null | string
  /** the checkout's status and paymentStatus, as delivered */
  status: null | string
  paymentStatus: null | string
  /** what the listener answered the sender */
  answered: number
  /** with --forward-to: the forward's status (null when it could not be delivered) */
  forward?: {durationMs: number; error?: string; status: null | number; url: string}
}

export interface ListenerOptions {
  /** 0 picks a free port */
  port: number
  host?: string
  /** http(s) URL each event is forwarded to (same body, same content-type) */
  forwardTo?: string
  forwardTimeoutMs?: number
  /** How forwards leave (the command's transport: its --verbose trace); by default a plain one. */
  transport?: Transport
  onEvent(event: ReceivedEvent): Promise<void> | void
}

export interface RunningListener {
  /** the URL to register as a callback */
  url: string
  port: number
  close(): Promise<void>
}

const BODY_LIMIT = 1024 * 1024

/** Event name when the sender did not say it in `x-checkout-event`: from the payload's paymentStatus. */
const EVENT_OF_PAYMENT_STATUS: Record<string, WebhookEvent> = {
  PAYMENT_SUCCESS: 'CHECKOUT_SUCCESS',
  PAYMENT_FAILED: 'CHECKOUT_FAILURE',
  PAYMENT_CANCELLED: 'CHECKOUT_DROPOUT',
  PAYMENT_EXPIRED: 'CHECKOUT_DROPOUT',
}

function text(value: unknown): null | string {
  if (typeof value === 'string' && value) return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return null
}

/** What a delivery says: event name (header first, then paymentStatus), checkout id, amount, statuses. */
export function describeDelivery(headers: IncomingMessage['headers'], body: unknown, now = new Date()): Omit<ReceivedEvent, 'answered'> {
  const record = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  const total = record.totalAmount && typeof record.totalAmount === 'object' ? (record.totalAmount as Record<string, unknown>) : {}
  const header = headers['x-checkout-event']
  const named = (Array.isArray(header) ? header[0] : header)?.trim()
  const paymentStatus = text(record.paymentStatus)
  return {
    time: now.toISOString(),
    event: named || (paymentStatus && EVENT_OF_PAYMENT_STATUS[paymentStatus]) || 'UNKNOWN',
    checkoutId: text(record.id) ?? text(record.checkoutId),
    amount: text(total.value),
    currency: text(total.currency),
    status: text(record.status),
    paymentStatus,
  }
}

/** One line for people: time, event, checkout id, amount, status, then the forward and the answer. */
export function formatEventLine(e: ReceivedEvent): string {
  const amount = e.amount ? `${e.amount} ${e.currency ?? ''}`.trim() : '-'
  const status = [e.status, e.paymentStatus].filter(Boolean).join('/') || '-'
  const forward = e.forward
    ? `  forward ${e.forward.status ?? `failed (${e.forward.error ?? 'no answer'})`} ${e.forward.url} (${e.forward.durationMs} ms)`
    : ''
  // Whoever posts to the listener chooses these fields: a terminal shows them, it does not act on them.
  return escapeControlChars(`${e.time}  ${e.event.padEnd(16)}  ${(e.checkoutId ?? '-').padEnd(36)}  ${amount.padStart(14)}  ${status}${forward}  answered ${e.answered}`)
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > BODY_LIMIT) return undefined
    chunks.push(chunk as Buffer)
  }

  return Buffer.concat(chunks)
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch {
    return undefined
  }
}

interface Answer {
  status: number
  contentType: string
  body: string
}

/**
 * Forwards a delivery once, as received (body and content-type, plus x-checkout-event), and
 * answers the sender with the forward's own status and body: the sender's retries then work
 * through the listener exactly as if it called the app directly. A forward that gets no answer
 * (refused, timed out) is answered 502, so the sender retries it too. The listener itself never
 * retries: that would multiply deliveries behind the sender's back.
 */
async function forward(
  transport: Transport,
  url: string,
  raw: Buffer,
  headers: IncomingMessage['headers'],
  timeoutMs: number,
): Promise<{answer: Answer; report: NonNullable<ReceivedEvent['forward']>}> {
  const started = performance.now()
  const event = headers['x-checkout-event']
  const type = headers['content-type']
  try {
    const res = await transport.send({
      method: 'POST',
      url: new URL(url),
      label: 'webhook forward',
      accept: '*/*',
      headers: event ? {'x-checkout-event': Array.isArray(event) ? event[0] : event} : {},
      body: {raw, contentType: type ?? 'application/json'},
      // Never retried here: the sender retries, through the listener, what was not answered.
      idempotent: false,
      timeoutMs,
    })
    const answered = res.headers['content-type']
    return {
      answer: {status: res.status, contentType: (Array.isArray(answered) ? answered[0] : answered) ?? 'text/plain', body: res.text},
      report: {url, status: res.status, durationMs: Math.round(performance.now() - started)},
    }
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    const code = failureCode(error)
    const reason = code === 'timeout' ? `timed out after ${timeoutMs} ms` : (code ?? error.message)
    return {
      answer: {status: 502, contentType: 'application/json', body: JSON.stringify({error: `forward to ${url} failed: ${reason}`})},
      report: {url, status: null, error: reason, durationMs: Math.round(performance.now() - started)},
    }
  }
}

/** Starts the receiver on loopback. Resolves once it listens. */
export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const host = options.host ?? '127.0.0.1'
  const transport = options.transport ?? createTransport()
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const reply = (a: Answer) => res.writeHead(a.status, {'content-type': a.contentType}).end(a.body)
    if (req.method !== 'POST') {
      res.writeHead(405, {allow: 'POST', 'content-type': 'application/json'}).end(JSON.stringify({error: 'POST checkout events here'}))
      return
    }

    const raw = await readBody(req)
    if (!raw) {
      reply({status: 413, contentType: 'application/json', body: JSON.stringify({error: `body over ${BODY_LIMIT} bytes`})})
      return
    }

    const body = parseJson(raw)
    const seen = describeDelivery(req.headers, body)
    let answer: Answer
    let forwarded: ReceivedEvent['forward']
    if (options.forwardTo) {
      const result = await forward(transport, options.forwardTo, raw, req.headers, options.forwardTimeoutMs ?? 10_000)
      answer = result.answer
      forwarded = result.report
    } else {
      answer =
        body === undefined
          ? {status: 400, contentType: 'application/json', body: JSON.stringify({error: 'expected a JSON body'})}
          : {status: 200, contentType: 'application/json', body: JSON.stringify({received: true})}
    }

    await options.onEvent({...seen, answered: answer.status, ...(forwarded ? {forward: forwarded} : {})})
    reply(answer)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, {'content-type': 'application/json'}).end(JSON.stringify({error: error.message}))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/webhooks`,
    port,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
      })
    },
  }
}

// ---------------------------------------------------------------------------------------------
// --register: point the webhooks at the listener, then put back what was there
// ---------------------------------------------------------------------------------------------

/** What `--register` changed, to undo it: a webhook updated (with its previous URL) or one created. */
export type ChangedWebhook =
  {action: 'created'; id: string; name: WebhookEvent} | {action: 'updated'; id: string; name: WebhookEvent; previousUrl: string}

export interface RestoreProblem {
  change: ChangedWebhook
  error: OpsError
  /** a command that puts it right by hand */
  fix: NextStep
}

function asOpsError(error: unknown): OpsError {
  return error instanceof OpsError ? error : new OpsError((error as Error).message, ExitCode.Unexpected)
}

/**
 * Points the webhook of each event at `url`: updates the ones that exist, registers the ones that
 * don't, and returns what it changed. If a step fails, what was changed so far is put back before
 * the error is thrown.
 */
export async function pointWebhooksAt(
  client: ServiceClient,
  url: string,
  report: (change: ChangedWebhook) => void = () => {},
): Promise<ChangedWebhook[]> {
  const existing: WebhookRecord[] = (await client.call(checkoutOps.listWebhooks)).data
  const changes: ChangedWebhook[] = []
  try {
    for (const name of WEBHOOK_EVENTS) {
      const current = existing.find((w) => w.name === name)
      let change: ChangedWebhook
      if (current) {
        await client.call(checkoutOps.updateWebhook, {params: {webhookId: current.id}, body: {name, callbackUrl: url}})
        change = {action: 'updated', id: current.id, name, previousUrl: current.callbackUrl}
      } else {
        const {data} = await client.call(checkoutOps.registerWebhook, {body: {name, callbackUrl: url}})
        change = {action: 'created', id: data.id, name}
      }

      changes.push(change)
      report(change)
    }
  } catch (error) {
    const problems = await restoreWebhooks(client, changes)
    const failure = asOpsError(error)
    const unsure = error instanceof NetworkError && error.outcomeUnknown ? ' (the last change may or may not have been made)' : ''
    throw new OpsError(
      `Could not point the webhooks at ${url}: ${failure.message}${unsure}. ` +
        (problems.length === 0 ? 'What had been changed was put back.' : describeProblems(problems)),
      failure.exitCode,
    ).withNext({step: 'webhook-list'}, ...problems.map((p) => p.fix))
  }

  return changes
}

/**
 * Undoes `pointWebhooksAt`, last change first: updates the URLs back, deletes the webhooks it
 * created (one already gone counts as deleted). Every change is attempted; the ones that fail
 * are returned with a command that puts each right.
 */
export async function restoreWebhooks(client: ServiceClient, changes: readonly ChangedWebhook[]): Promise<RestoreProblem[]> {
  const problems: RestoreProblem[] = []
  for (const change of [...changes].reverse()) {
    try {
      if (change.action === 'updated') {
        await client.call(checkoutOps.updateWebhook, {params: {webhookId: change.id}, body: {name: change.name, callbackUrl: change.previousUrl}})
      } else {
        await client.call(checkoutOps.deleteWebhook, {params: {webhookId: change.id}})
      }
    } catch (error) {
      if (change.action === 'created' && error instanceof ApiError && error.status === 404) continue
      problems.push({
        change,
        error: asOpsError(error),
        fix:
          change.action === 'updated'
            ? {step: 'webhook-update', name: change.name, url: change.previousUrl, webhookId: change.id}
            : {step: 'webhook-delete', webhookId: change.id},
      })
    }
  }

  return problems
}

export function describeProblems(problems: readonly RestoreProblem[]): string {
  return `Could not put back ${problems.length} webhook(s): ${problems
    .map(
      (p) =>
        `${p.change.name} ${p.change.id} (${p.change.action === 'updated' ? `was ${p.change.previousUrl}` : 'created by the listener'}): ${p.error.message}`,
    )
    .join('; ')}`
}
