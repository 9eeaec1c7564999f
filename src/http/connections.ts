import type {LookupFunction} from 'node:net'

import type {Answer, Carrier, Exchange} from './exchange.js'
import type {UndiciCarrier} from './undici-carrier.js'

import {isLoopback} from './url.js'

let substitute: Carrier | undefined

/**
 * Tests put a carrier of their own in place of the network (test/helpers/command.ts: undici's
 * MockAgent behind one): every request of the shared connections then goes to it, through every
 * rule of the transport.
 */
export function setCarrier(carrier: Carrier | undefined): void {
  substitute = carrier
}

/** Whether the environment names a proxy (HTTP(S)_PROXY; NO_PROXY alone does not). */
function proxyConfigured(): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => process.env[k])
}

/**
 * Which carrier takes a request: plain http goes on node:http (./node-http-carrier.ts) unless it
 * must go through a proxy; https and proxied requests on undici (./undici-carrier.ts), imported
 * at the first of them, so commands that only talk to the sandbox never load undici.
 */
export class Connections {
  private plain?: Promise<Carrier>
  private undici?: Promise<UndiciCarrier>

  /**
   * @param shared the process-wide connections (proxies, test injection) rather than a
   *   transport's own (the sandbox's webhook deliveries, which come from the emulator, not from
   *   the CLI's user: no proxy)
   * @param lookup how a private pool resolves names (the deliveries connect only to addresses
   *   their rules allow); the system's resolver when absent
   */
  constructor(
    private readonly shared: boolean,
    private readonly lookup?: LookupFunction,
  ) {}

  async close(): Promise<void> {
    const open = [this.plain, this.undici]
    this.plain = undefined
    this.undici = undefined
    await Promise.all(open.map((carrier) => carrier?.then((c) => c.close())))
  }

  async send(exchange: Exchange): Promise<Answer> {
    if (this.shared && substitute) return substitute.send(exchange)
    // Loopback targets never go through a proxy, whatever NO_PROXY says: NO_PROXY cannot name all of
    // 127.0.0.0/8, a plain-http request carries its credentials in clear, and the sandbox is always local.
    const viaProxy = this.shared && !isLoopback(exchange.url.hostname) && proxyConfigured()
    if (exchange.url.protocol === 'http:' && !viaProxy) {
      // Even node:http is loaded at the first request: commands that send nothing do not pay for it.
      this.plain ??= import('./node-http-carrier.js').then(({NodeHttpCarrier}) => new NodeHttpCarrier(this.lookup))
      return (await this.plain).send(exchange)
    }

    this.undici ??= import('./undici-carrier.js').then(({UndiciCarrier}) => new UndiciCarrier(this.lookup))
    return (await this.undici).send(exchange, viaProxy)
  }
}

/** The CLI's connections, one set per process. */
export const sharedConnections = new Connections(true)

/** Lets a finished command exit at once instead of waiting for idle keep-alive sockets. */
export async function closeConnections(): Promise<void> {
  await sharedConnections.close()
}
