import type {LookupFunction} from 'node:net'

import {Agent, type Dispatcher, EnvHttpProxyAgent, request} from 'undici'

import type {Answer, Carrier, Exchange} from './exchange.js'


/**
 * https and proxied requests, on undici's public API: `request()` over an `Agent`, or over an
 * `EnvHttpProxyAgent` (HTTP(S)_PROXY, NO_PROXY) when ./connections.ts says the request goes
 * through a proxy. Imported at the first such request: a command that only talks to the sandbox
 * never loads undici.
 */
export class UndiciCarrier implements Carrier {
  private direct?: Agent
  private proxied?: EnvHttpProxyAgent

  /** @param lookup resolves the host of a direct connection (node:net's option); the system's resolver when absent */
  constructor(private readonly lookup?: LookupFunction) {}

  async close(): Promise<void> {
    const open = [this.direct, this.proxied]
    this.direct = undefined
    this.proxied = undefined
    await Promise.all(open.map((d) => d?.close().catch(() => {})))
  }

  send(exchange: Exchange, viaProxy = false): Promise<Answer> {
    return sendOn(this.dispatcher(viaProxy), exchange)
  }

  private dispatcher(viaProxy: boolean): Dispatcher {
    if (viaProxy) {
      this.proxied ??= new EnvHttpProxyAgent()
      return this.proxied
    }

    this.direct ??= new Agent(this.lookup ? {connect: {lookup: this.lookup}} : {})
    return this.direct
  }
}

/** ./answer-limit.ts's ANSWER_TOO_LARGE: this file is loaded lazily and imports nothing of the bundle's. */
const ANSWER_TOO_LARGE = 'ERR_ANSWER_TOO_LARGE'

/**
 * One attempt on an undici dispatcher (tests give undici's MockAgent). The body is counted as it
 * arrives: past `maxBodyBytes` it is destroyed, which aborts the request and its connection.
 */
export async function sendOn(dispatcher: Dispatcher, {headers, maxBodyBytes, method, payload, signal, url}: Exchange): Promise<Answer> {
  const res = await request(url, {body: payload, dispatcher, headers, method: method as Dispatcher.HttpMethod, signal})
  const tooLarge = () => {
    const error = Object.assign(new Error(`an answer over ${maxBodyBytes} bytes`), {code: ANSWER_TOO_LARGE})
    res.body.destroy(error)
    return error
  }

  if (Number(res.headers['content-length']) > maxBodyBytes) throw tooLarge()
  const chunks: Buffer[] = []
  let received = 0
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    received += chunk.length
    if (received > maxBodyBytes) throw tooLarge()
    chunks.push(chunk)
  }

  return {headers: res.headers, status: res.statusCode, text: Buffer.concat(chunks).toString('utf8')}
}
