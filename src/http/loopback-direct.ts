import {Dispatcher, EnvHttpProxyAgent} from 'undici'

import {NodeHttpCarrier} from './carrier.js'
import {isLoopback} from './url.js'

/**
 * HTTP(S)_PROXY and NO_PROXY for the world, and never a proxy for this machine. NO_PROXY cannot
 * say "all of 127.0.0.0/8": a target such as 127.0.0.2 would go to the proxy, and a plain-http
 * request carries its credentials in clear text. Loaded only when a proxy variable is set.
 */
export class LoopbackDirectAgent extends Dispatcher {
  private readonly direct = new NodeHttpCarrier()
  private readonly proxied = new EnvHttpProxyAgent()

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.agentFor(options.origin).dispatch(options, handler)
  }

  override close(): Promise<void>
  override close(callback: () => void): void
  override close(callback?: () => void): Promise<void> | void {
    const closed = Promise.all([this.direct.close(), this.proxied.close()]).then(() => {})
    if (!callback) return closed
    closed.then(callback, callback)
  }

  override destroy(): Promise<void>
  override destroy(err: Error | null): Promise<void>
  override destroy(callback: () => void): void
  override destroy(err: Error | null, callback: () => void): void
  override destroy(errOrCallback?: (() => void) | Error | null, callback?: () => void): Promise<void> | void {
    const err = typeof errOrCallback === 'function' ? null : (errOrCallback ?? null)
    const done = typeof errOrCallback === 'function' ? errOrCallback : callback
    const destroyed = Promise.all([this.direct.destroy(err), this.proxied.destroy(err)]).then(() => {})
    if (!done) return destroyed
    destroyed.then(done, done)
  }

  private agentFor(origin: Dispatcher.DispatchOptions['origin']): Dispatcher {
    if (origin === undefined) return this.proxied
    const {hostname} = typeof origin === 'string' ? new URL(origin) : origin
    return isLoopback(hostname) ? this.direct : this.proxied
  }
}
