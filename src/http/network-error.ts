import {NetworkError} from '../errors.js'
import {scrubSecrets} from './redact.js'

/** Errors raised before a single byte left: the request cannot have been applied. */
const NOT_SENT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])

/** The code of a failed request (`ECONNREFUSED`, `UND_ERR_SOCKET`...), `timeout` for a timeout. */
export function failureCode(error: unknown): string | undefined {
  const err = (error instanceof NetworkError ? error.cause : error) as undefined | {cause?: {code?: string}; code?: string; name?: string}
  const code = err?.code ?? err?.cause?.code
  if (err?.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout'
  return code
}

/**
 * A request that got no answer, as exit 7. A change that may have reached the server is never
 * retried, and the message says it may have been applied: the user must look before repeating it.
 */
export function networkError(
  error: unknown,
  req: {idempotent: boolean; label: string; timeoutMs: number; url: URL},
  secrets: string[] = [],
): NetworkError {
  const code = failureCode(error)
  const seconds = Math.round(req.timeoutMs / 100) / 10
  const what = code === 'timeout' ? `timed out after ${seconds} s` : describeNetworkCode(code, (error as Error)?.message)
  const outcomeUnknown = !req.idempotent && !NOT_SENT_ERRORS.has(code ?? '')
  const unknown = outcomeUnknown ? '; the request may have been applied' : ''
  const message = scrubSecrets(`${req.label}: ${req.url.origin} ${what}${unknown}`, secrets)
  const error7 = new NetworkError(message, error, outcomeUnknown, [
    ...(outcomeUnknown ? ['Check whether it took effect before sending it again (it was not retried)'] : []),
    code === 'timeout' ? 'Raise the limit with --timeout <seconds>' : `Check that ${req.url.origin} is reachable`,
  ])
  return code === 'timeout' ? error7 : error7.withNext({step: 'sandbox-start'})
}

function describeNetworkCode(code: string | undefined, message: string | undefined): string {
  switch (code) {
    case 'ECONNREFUSED': {
      return 'refused the connection'
    }

    case 'ECONNRESET':
    case 'UND_ERR_SOCKET': {
      return 'closed the connection without answering'
    }

    case 'ENOTFOUND':
    case 'EAI_AGAIN': {
      return 'could not be resolved'
    }

    case 'UND_ERR_CONNECT_TIMEOUT': {
      return 'did not accept the connection in time'
    }

    default: {
      return `could not be reached (${code ?? message ?? 'network error'})`
    }
  }
}
