import type {Dispatcher} from 'undici'

let injected: Dispatcher | undefined
let shared: Dispatcher | undefined

/** Tests inject undici's MockAgent here; every request of the CLI goes through this one dispatcher. */
export function setDispatcher(dispatcher: Dispatcher | undefined): void {
  injected = dispatcher
}

/**
 * The process-wide dispatcher: undici's EnvHttpProxyAgent, so HTTP(S)_PROXY and NO_PROXY are
 * honoured, with loopback never proxied (the sandbox is always local). undici is imported here,
 * lazily, so commands that send nothing (help, profiles, dry runs) never pay for it.
 */
export async function getDispatcher(): Promise<Dispatcher> {
  if (injected) return injected
  if (!shared) {
    const {Agent, EnvHttpProxyAgent} = await import('undici')
    const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => process.env[k])
    if (proxied) {
      const noProxy = [process.env.NO_PROXY ?? process.env.no_proxy, 'localhost', '127.0.0.1', '::1'].filter(Boolean).join(',')
      shared = new EnvHttpProxyAgent({noProxy})
    } else {
      shared = new Agent()
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
