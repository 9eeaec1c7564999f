import {Agent, type Dispatcher, EnvHttpProxyAgent, request} from 'undici'

import type {Answer, Carrier, Exchange} from './exchange.js'

import {proxyConfigured} from './proxy-env.js'
import {isLoopback} from './url.js'

/**
 * https and proxied requests, on undici's public API: `request()` over an `Agent`, or an
 * `EnvHttpProxyAgent` when a proxy variable is set (HTTP(S)_PROXY, NO_PROXY), except for
 * loopback targets, which always go direct whatever NO_PROXY says: NO_PROXY cannot name all of
 * 127.0.0.0/8, and the sandbox is always local. Imported lazily, at the first such request: a
 * command that only talks to the sandbox never loads undici.
 */
export class UndiciCarrier implements Carrier {
  private direct?: Agent
  private proxied?: EnvHttpProxyAgent

  /**
   * @param options.proxies honour the proxy variables (the CLI's requests; not the sandbox's own webhook deliveries)
   * @param options.dispatcher a dispatcher to send everything through (tests' MockAgent)
   */
  constructor(private readonly options: {dispatcher?: Dispatcher; proxies: boolean}) {}

  async close(): Promise<void> {
    const open = [this.direct, this.proxied]
    this.direct = undefined
    this.proxied = undefined
    await Promise.all(open.map((d) => d?.close().catch(() => {})))
  }

  async send({headers, method, payload, signal, url}: Exchange): Promise<Answer> {
    const res = await request(url, {body: payload, dispatcher: this.dispatcherFor(url), headers, method: method as Dispatcher.HttpMethod, signal})
    return {headers: res.headers, status: res.statusCode, text: await res.body.text()}
  }

  private dispatcherFor(url: URL): Dispatcher {
    if (this.options.dispatcher) return this.options.dispatcher
    if (this.options.proxies && !isLoopback(url.hostname) && proxyConfigured()) {
      this.proxied ??= new EnvHttpProxyAgent()
      return this.proxied
    }

    this.direct ??= new Agent()
    return this.direct
  }
}
