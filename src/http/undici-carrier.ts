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

  /** @param only a dispatcher to send everything through (tests' MockAgent) */
  constructor(private readonly only?: Dispatcher) {}

  async close(): Promise<void> {
    const open = [this.direct, this.proxied]
    this.direct = undefined
    this.proxied = undefined
    await Promise.all(open.map((d) => d?.close().catch(() => {})))
  }

  async send({headers, method, payload, signal, url}: Exchange, viaProxy = false): Promise<Answer> {
    const res = await request(url, {body: payload, dispatcher: this.dispatcher(viaProxy), headers, method: method as Dispatcher.HttpMethod, signal})
    return {headers: res.headers, status: res.statusCode, text: await res.body.text()}
  }

  private dispatcher(viaProxy: boolean): Dispatcher {
    if (this.only) return this.only
    if (viaProxy) {
      this.proxied ??= new EnvHttpProxyAgent()
      return this.proxied
    }

    this.direct ??= new Agent()
    return this.direct
  }
}
