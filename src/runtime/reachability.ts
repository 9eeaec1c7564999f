/**
 * One look before a run of many steps (smoke, scenario run): does anything answer at the service
 * base URLs? Without it a run against a stopped sandbox failed step after step for seconds. The
 * probe is a GET of each distinct base URL, without credentials and not retried: any HTTP answer
 * (a 404 included) means something is there; only a failure to connect or a timeout counts.
 */
import type {Transport} from '../http/transport.js'

import {NetworkError} from '../errors.js'
import {isLoopback} from '../http/url.js'

export interface ProbeTarget {
  baseUrl: string
  service: string
}

/** The targets that did not answer, each base URL probed once. */
export async function unanswered(transport: Transport, targets: readonly ProbeTarget[], timeoutMs = 5000): Promise<ProbeTarget[]> {
  const seen = new Map<string, Promise<boolean>>()
  const probe = (url: string) =>
    transport
      .send({idempotent: true, label: 'reachability check', method: 'GET', retry: {maxRetries: 0}, timeoutMs, url: new URL(url)})
      .then(
        () => true,
        (error: unknown) => !(error instanceof NetworkError),
      )
  const answers = await Promise.all(
    targets.map(async (target) => {
      if (!seen.has(target.baseUrl)) seen.set(target.baseUrl, probe(target.baseUrl))
      return (await seen.get(target.baseUrl)) ? undefined : target
    }),
  )
  return answers.filter((t): t is ProbeTarget => t !== undefined)
}

/**
 * The one line a run stops with (exit 7) when nothing answers: "No sandbox answering at
 * http://127.0.0.1:4010" for a local sandbox (with how to start one on that port), else the
 * services and their URLs.
 */
export function notAnsweringError(missing: readonly ProbeTarget[], sandbox: boolean): NetworkError {
  const origins = [...new Set(missing.map((t) => new URL(t.baseUrl).origin))]
  const local = sandbox && origins.length === 1 && isLoopback(new URL(origins[0]).hostname)
  if (local) {
    const port = Number(new URL(origins[0]).port || 80)
    return new NetworkError(`No sandbox answering at ${origins[0]}; nothing was run`).withNext({port, step: 'sandbox-start'})
  }

  const what = missing.map((t) => `${t.service} at ${t.baseUrl}`).join(', ')
  return new NetworkError(`Nothing answering: ${what}; nothing was run`).withNext({step: 'profile-urls'})
}
