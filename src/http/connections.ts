import type {Dispatcher} from 'undici'

import type {Answer, Carrier, Exchange} from './exchange.js'

import {NodeHttpCarrier} from './node-http-carrier.js'
import {proxyConfigured} from './proxy-env.js'
import {isLoopback} from './url.js'

let injected: Dispatcher | undefined

/** Tests inject undici's MockAgent here: every request of the shared connections then goes through it. */
export function setDispatcher(dispatcher: Dispatcher | undefined): void {
  injected = dispatcher
}

/**
 * Which carrier takes a request: plain http goes on node:http (./node-http-carrier.ts) unless it
 * must go through a proxy; https and proxied requests on undici (./undici-carrier.ts), imported
 * at the first of them, so commands that only talk to the sandbox never load undici.
 */
export class Connections implements Carrier {
  private readonly plain = new NodeHttpCarrier()
  private undici?: Promise<Carrier>

  /**
   * @param shared the process-wide connections (proxies, test injection) rather than a
   *   transport's own (the sandbox's webhook deliveries, which come from the emulator, not from
   *   the CLI's user: no proxy)
   */
  constructor(private readonly shared: boolean) {}

  async close(): Promise<void> {
    const undici = this.undici
    this.undici = undefined
    await Promise.all([this.plain.close(), undici?.then((u) => u.close())])
  }

  async send(exchange: Exchange): Promise<Answer> {
    const mock = this.shared ? injected : undefined
    const viaProxy = this.shared && !isLoopback(exchange.url.hostname) && proxyConfigured()
    if (!mock && exchange.url.protocol === 'http:' && !viaProxy) return this.plain.send(exchange)
    if (mock) {
      const {UndiciCarrier} = await import('./undici-carrier.js')
      return new UndiciCarrier({dispatcher: mock, proxies: false}).send(exchange)
    }

    this.undici ??= import('./undici-carrier.js').then(({UndiciCarrier}) => new UndiciCarrier({proxies: this.shared}))
    return (await this.undici).send(exchange)
  }
}

/** The CLI's connections, one set per process. */
export const sharedConnections = new Connections(true)

/** Lets a finished command exit at once instead of waiting for idle keep-alive sockets. */
export async function closeConnections(): Promise<void> {
  await sharedConnections.close()
}
