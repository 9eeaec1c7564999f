import type {LookupFunction} from 'node:net'

import {Agent, request} from 'node:http'

import type {Answer, Carrier, Exchange} from './exchange.js'

const CONNECT_TIMEOUT_MS = 10_000
/** network-error.ts's CONNECT_TIMEOUT, spelt here so that this lazily loaded file imports nothing of the bundle's. */
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT'
/** ./answer-limit.ts's ANSWER_TOO_LARGE, spelt here for the same reason. */
const ANSWER_TOO_LARGE = 'ERR_ANSWER_TOO_LARGE'

/**
 * Plain-http requests (the sandbox, a local listener) on Node's own HTTP client, with keep-alive
 * connections. undici is never loaded for them: its HTTP parser is a WebAssembly module that V8
 * compiles at the first connection, which was a third of an API command's time against the
 * sandbox and most of its memory; Node's parser is native.
 */
export class NodeHttpCarrier implements Carrier {
  private agent?: Agent

  /** @param lookup resolves the host (node:net's option); the system's resolver when absent */
  constructor(private readonly lookup?: LookupFunction) {}

  async close(): Promise<void> {
    this.agent?.destroy()
    this.agent = undefined
  }

  send({headers, maxBodyBytes, method, payload, signal, url}: Exchange): Promise<Answer> {
    this.agent ??= new Agent({keepAlive: true})
    const agent = this.agent
    return new Promise<Answer>((resolve, reject) => {
      let connectTimer: NodeJS.Timeout | undefined
      const fail = (error: unknown) => {
        clearTimeout(connectTimer)
        reject(signal.aborted ? signal.reason : error)
      }

      if (signal.aborted) return fail(signal.reason)
      const req = request({
        agent,
        headers: payload === undefined ? headers : {...headers, 'content-length': String(Buffer.byteLength(payload))},
        host: url.hostname.replaceAll(/^\[|\]$/g, ''),
        ...(this.lookup ? {lookup: this.lookup} : {}),
        method,
        path: url.pathname + url.search,
        port: url.port || 80,
      })
      const abort = () => req.destroy(signal.reason)
      signal.addEventListener('abort', abort, {once: true})
      req.on('close', () => signal.removeEventListener('abort', abort))
      req.on('error', fail)
      req.on('socket', (socket) => {
        if (!socket.connecting) return
        // Named as undici names it: nothing was sent, so the request cannot have been applied.
        const timedOut = Object.assign(new Error(`no connection within ${CONNECT_TIMEOUT_MS / 1000} s`), {code: CONNECT_TIMEOUT})
        connectTimer = setTimeout(() => req.destroy(timedOut), CONNECT_TIMEOUT_MS).unref()
        socket.once('connect', () => clearTimeout(connectTimer))
      })
      req.on('response', (res) => {
        const chunks: Buffer[] = []
        let received = 0
        // Counted as it arrives: past the limit the connection is dropped, and nothing more is read or kept.
        const tooLarge = () => {
          const error = Object.assign(new Error(`an answer over ${maxBodyBytes} bytes`), {code: ANSWER_TOO_LARGE})
          fail(error)
          req.destroy(error)
        }

        if (Number(res.headers['content-length']) > maxBodyBytes) return tooLarge()
        res.on('data', (chunk: Buffer) => {
          received += chunk.length
          if (received > maxBodyBytes) return tooLarge()
          chunks.push(chunk)
        })
        res.on('error', fail)
        res.on('close', () => {
          if (!res.complete) fail(Object.assign(new Error('the connection closed before the whole answer arrived'), {code: 'ECONNRESET'}))
        })
        res.on('end', () => resolve({headers: res.headers, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8')}))
      })
      req.end(payload)
    })
  }
}
