import type {Transport} from '../http/transport.js'

import {NetworkError, UsageError} from '../errors.js'
import {apiErrorFrom} from '../http/api-error.js'
import {parseJson} from '../http/json.js'
import {isLoopback} from '../http/url.js'

/** The sandbox origin behind a profile's health base URL. Control calls go only to loopback. */
export function sandboxOrigin(healthBaseUrl: string): string {
  const url = new URL(healthBaseUrl)
  if (!isLoopback(url.hostname)) throw new UsageError(`${url.origin} is not a local sandbox; sandbox commands need a sandbox profile`)
  return url.origin
}

/** Calls a `/__sandbox/...` control endpoint of a running sandbox, through the command's transport (a dry run sends nothing). */
export async function sandboxControl(
  transport: Transport,
  origin: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
  /** a JSON body as it is, sent without being parsed and serialised again (a whole state file) */
  rawJson?: Buffer,
): Promise<any> {
  const name = path.replace(/^\//, '')
  const label = `sandbox ${name}`
  let res
  try {
    res = await transport.send({
      method,
      url: new URL(`/__sandbox/${name}`, origin),
      label,
      // Setting or advancing the clock twice is not the same as once; a PUT (a whole state) is not retried either: it can be large.
      idempotent: method === 'GET',
      ...(rawJson ? {body: {contentType: 'application/json', raw: rawJson}} : body === undefined ? {} : {body: {json: body}}),
    })
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    throw new NetworkError(`No sandbox answering at ${origin} (${error.message})`, error.cause, error.outcomeUnknown).withNext({
      step: 'sandbox-start',
    })
  }

  if (res.status >= 400) throw apiErrorFrom(res, {operationId: label, service: 'sandbox'})
  return parseJson(res.text)
}
