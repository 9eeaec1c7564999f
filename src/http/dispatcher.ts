import type {Dispatcher} from 'undici'

let injected: Dispatcher | undefined
let shared: Dispatcher | undefined

/** Tests inject undici's MockAgent here; every request of the CLI goes through this one dispatcher. */
export function setDispatcher(dispatcher: Dispatcher | undefined): void {
  injected = dispatcher
}

/**
 * The process-wide dispatcher. With a proxy variable set, HTTP(S)_PROXY and NO_PROXY are honoured
 * (undici's EnvHttpProxyAgent) except for loopback targets, which always go direct whatever NO_PROXY
 * says (the sandbox is always local). Plain-http requests travel on Node's own HTTP client
 * (./carrier.ts), https ones on undici's. undici is imported here, lazily, so commands that send
 * nothing (help, profiles, dry runs) never pay for it.
 */
export async function getDispatcher(): Promise<Dispatcher> {
  if (injected) return injected
  if (!shared) {
    const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => process.env[k])
    if (proxied) {
      const {LoopbackDirectAgent} = await import('./loopback-direct.js')
      shared = new LoopbackDirectAgent()
    } else {
      const {NodeHttpCarrier} = await import('./carrier.js')
      shared = new NodeHttpCarrier()
    }
  }

  return shared
}

/** Lets a finished command exit at once instead of waiting for idle keep-alive sockets. */
export async function closeDispatcher(): Promise<void> {
  const d = shared
  shared = undefined
  await d?.close().catch(() => {})
}
