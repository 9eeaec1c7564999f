import {ApiError, NetworkError, UsageError} from '../errors.js'
import {getDispatcher} from '../http/dispatcher.js'
import {isLoopback} from '../http/url.js'

/** The sandbox origin behind a profile's health base URL. Control calls go only to loopback. */
export function sandboxOrigin(healthBaseUrl: string): string {
  const url = new URL(healthBaseUrl)
  if (!isLoopback(url.hostname)) throw new UsageError(`${url.origin} is not a local sandbox; sandbox commands need a sandbox profile`)
  return url.origin
}

/** Calls a `/__sandbox/...` control endpoint of a running sandbox. */
export async function sandboxControl(
  origin: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<any> {
  const dispatcher = await getDispatcher()
  const url = new URL(`/__sandbox/${path.replace(/^\//, '')}`, origin)
  let res
  try {
    res = await dispatcher.request({
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? {} : {'content-type': 'application/json'},
      method,
      origin: url.origin,
      path: url.pathname,
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    throw new NetworkError(`No sandbox answering at ${origin}`, error, false).withNext({step: 'sandbox-start'})
  }

  const text = await res.body.text()
  const data = text ? JSON.parse(text) : undefined
  if (res.statusCode >= 400) {
    throw new ApiError({
      message: data?.message ?? `HTTP ${res.statusCode}`,
      operationId: `sandbox ${path}`,
      service: 'sandbox',
      status: res.statusCode,
    })
  }

  return data
}
