import type {ClientRequest, IncomingMessage} from 'node:http'

import {Agent as HttpAgent, request as httpRequest} from 'node:http'
import {Readable} from 'node:stream'
import {Dispatcher, errors, util} from 'undici'

import {newStyleHandler} from './legacy-handler.js'

const CONNECT_TIMEOUT_MS = 10_000
const DEFAULT_HEADERS_TIMEOUT_MS = 300_000
const DEFAULT_BODY_TIMEOUT_MS = 300_000

/**
 * Carries plain-http requests (the sandbox, a local webhook listener) on Node's own HTTP client,
 * under undici's API: `request()`, interceptors such as retry, abort signals, `headersTimeout` and
 * `bodyTimeout` behave as on an undici Agent. undici parses HTTP with a WebAssembly module that V8
 * compiles at the first connection, and a short command waited for that compilation at exit
 * (about a third of an API command's time against the sandbox, and most of its memory).
 * Node's parser is native. https and upgrades go to an undici Agent, loaded at the first such
 * request: the connection pool and its HTTP/1 and HTTP/2 clients are most of undici's code.
 */
export class NodeHttpCarrier extends Dispatcher {
  private readonly agent = new HttpAgent({keepAlive: true})
  private readonly inFlight = new Set<Promise<void>>()
  private readonly requests = new Set<ClientRequest>()
  private other?: Promise<Dispatcher>
  private closed = false

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = new URL(String(options.origin))
    if (origin.protocol !== 'http:' || options.upgrade || options.method === 'CONNECT') {
      this.pool().then(
        (agent) => agent.dispatch(options, handler),
        (error: Error) => newStyleHandler(handler).onResponseError?.(new Controller(() => {}), error),
      )
      return true
    }

    const h = newStyleHandler(handler)
    if (this.closed) {
      h.onResponseError?.(new Controller(() => {}), new errors.ClientClosedError())
      return false
    }

    const done = this.send(origin, options, h)
    this.inFlight.add(done)
    done.finally(() => this.inFlight.delete(done))
    return true
  }

  private pool(): Promise<Dispatcher> {
    this.other ??= import('./undici-pool.js').then(({newAgent}) => newAgent())
    return this.other
  }

  override close(): Promise<void>
  override close(callback: () => void): void
  override close(callback?: () => void): Promise<void> | void {
    this.closed = true
    const closed = Promise.allSettled(this.inFlight).then(async () => {
      this.agent.destroy()
      await (await this.other)?.close()
    })
    if (!callback) return closed
    closed.then(callback, callback)
  }

  override destroy(): Promise<void>
  override destroy(err: Error | null): Promise<void>
  override destroy(callback: () => void): void
  override destroy(err: Error | null, callback: () => void): void
  override destroy(errOrCallback?: (() => void) | Error | null, callback?: () => void): Promise<void> | void {
    const err = typeof errOrCallback === 'function' || !errOrCallback ? new errors.ClientDestroyedError() : errOrCallback
    const done = typeof errOrCallback === 'function' ? errOrCallback : callback
    this.closed = true
    for (const req of this.requests) req.destroy(err)
    const destroyed = Promise.allSettled(this.inFlight).then(async () => {
      this.agent.destroy()
      await (await this.other)?.destroy(err)
    })
    if (!done) return destroyed
    destroyed.then(done, done)
  }

  /** One exchange; settles when the handler has been told how it ended. */
  private send(origin: URL, options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): Promise<void> {
    return new Promise<void>((settle) => {
      const exchange: {req?: ClientRequest} = {}
      let finished = false
      const timers = new Timers()
      const controller = new Controller((reason) => (exchange.req ? exchange.req.destroy(reason) : fail(reason)))

      function fail(error: Error): void {
        if (finished) return
        finished = true
        timers.clear()
        handler.onResponseError?.(controller, error)
        settle()
      }

      handler.onRequestStart?.(controller, {})
      if (controller.aborted) return fail(controller.reason ?? new errors.RequestAbortedError())

      const req = httpRequest({
        agent: this.agent,
        headers: headerObject(options.headers),
        host: origin.hostname.replaceAll(/^\[|\]$/g, ''),
        method: options.method,
        path: options.path,
        port: origin.port || 80,
      })
      exchange.req = req
      this.requests.add(req)
      const headersTimeout = options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT_MS
      const bodyTimeout = options.bodyTimeout ?? DEFAULT_BODY_TIMEOUT_MS

      req.on('socket', (socket) => {
        if (!socket.connecting) return
        timers.start('connect', CONNECT_TIMEOUT_MS, () => req.destroy(new errors.ConnectTimeoutError()))
        socket.once('connect', () => timers.stop('connect'))
      })
      req.on('error', (error) => fail(error))
      req.on('close', () => this.requests.delete(req))
      req.on('response', (res: IncomingMessage) => {
        timers.stop('headers')
        res.on('error', (error) => fail(error))
        controller.rawHeaders = res.rawHeaders.map((h) => Buffer.from(h, 'latin1'))
        controller.onResume = () => res.resume()
        controller.onPause = () => res.pause()
        const idle = () => timers.start('body', bodyTimeout, () => req.destroy(new errors.BodyTimeoutError()))
        idle()
        handler.onResponseStart?.(controller, res.statusCode ?? 0, util.parseHeaders(controller.rawHeaders), res.statusMessage)
        if (controller.aborted) return
        res.on('data', (chunk: Buffer) => {
          idle()
          if (!finished) handler.onResponseData?.(controller, chunk)
        })
        res.on('end', () => {
          if (finished) return
          finished = true
          timers.clear()
          controller.rawTrailers = res.rawTrailers.map((t) => Buffer.from(t, 'latin1'))
          handler.onResponseEnd?.(controller, util.parseHeaders(controller.rawTrailers))
          settle()
        })
        if (controller.paused) res.pause()
      })

      timers.start('headers', headersTimeout, () => req.destroy(new errors.HeadersTimeoutError()))
      writeBody(req, options.body)
    })
  }
}

/** What the handler holds to pause, resume or abort its exchange. */
class Controller implements Dispatcher.DispatchController {
  onPause?: () => void
  onResume?: () => void
  rawHeaders: Buffer[] | null = null
  rawTrailers: Buffer[] | null = null
  private state: {aborted: boolean; paused: boolean; reason: Error | null} = {aborted: false, paused: false, reason: null}

  constructor(private readonly onAbort: (reason: Error) => void) {}

  get aborted(): boolean {
    return this.state.aborted
  }

  get paused(): boolean {
    return this.state.paused
  }

  get reason(): Error | null {
    return this.state.reason
  }

  abort(reason: Error): void {
    if (this.state.aborted) return
    this.state.aborted = true
    this.state.reason = reason
    this.onAbort(reason)
  }

  pause(): void {
    this.state.paused = true
    this.onPause?.()
  }

  resume(): void {
    if (!this.state.paused) return
    this.state.paused = false
    this.onResume?.()
  }
}

/** Named timers of one exchange; none keeps the process alive on its own. */
class Timers {
  private readonly running = new Map<string, NodeJS.Timeout>()

  clear(): void {
    for (const t of this.running.values()) clearTimeout(t)
    this.running.clear()
  }

  start(name: string, ms: number, onExpiry: () => void): void {
    this.stop(name)
    if (ms > 0) this.running.set(name, setTimeout(onExpiry, ms).unref())
  }

  stop(name: string): void {
    clearTimeout(this.running.get(name))
    this.running.delete(name)
  }
}

/** undici accepts headers as an object, a flat [name, value, ...] array or an iterable of pairs. */
function headerObject(headers: Dispatcher.DispatchOptions['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null)
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return
    const key = name.toLowerCase()
    const v = Array.isArray(value) ? value.map(String) : String(value)
    const existing = out[key]
    out[key] = existing === undefined ? v : [...(Array.isArray(existing) ? existing : [existing]), ...(Array.isArray(v) ? v : [v])]
  }

  if (!headers) return out
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) add(String(headers[i]), headers[i + 1])
  } else if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<[string, string | string[] | undefined]>) add(name, value)
  } else {
    for (const [name, value] of Object.entries(headers)) add(name, value)
  }

  return out
}

function writeBody(req: ClientRequest, body: Dispatcher.DispatchOptions['body']): void {
  if (body === undefined || body === null) {
    req.end()
  } else if (typeof body === 'string' || body instanceof Uint8Array) {
    if (!req.hasHeader('content-length')) req.setHeader('content-length', Buffer.byteLength(body))
    req.end(body)
  } else if (body instanceof Readable || Symbol.asyncIterator in body || Symbol.iterator in body) {
    const stream = body instanceof Readable ? body : Readable.from(body as AsyncIterable<Uint8Array> | Iterable<Uint8Array>)
    stream.on('error', (error) => req.destroy(error))
    stream.pipe(req)
  } else {
    // FormData: nothing in opsctl sends one; undici's Agent encodes it.
    req.destroy(new errors.InvalidArgumentError('the plain-http carrier sends strings, bytes and streams only'))
  }
}
