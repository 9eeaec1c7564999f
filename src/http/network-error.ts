import {NetworkError} from '../errors.js'
import {scrubSecrets} from './redact.js'
import {isLoopback} from './url.js'

/** No connection in time: undici's code, which the node:http carrier uses too. */
export const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT'
/** Errors raised before a single byte left: the request cannot have been applied. */
const NOT_SENT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', CONNECT_TIMEOUT])

/** The code of a failed request (`ECONNREFUSED`, `UND_ERR_SOCKET`...), `timeout` for a timeout (the call's or one attempt's). */
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
  const what = code === 'timeout' ? `timed out after ${seconds} s` : describeNetworkCode(code, req.url, (error as Error)?.message)
  const outcomeUnknown = !req.idempotent && !NOT_SENT_ERRORS.has(code ?? '')
  const unknown = outcomeUnknown ? '; the request may have been applied' : ''
  const message = scrubSecrets(`${req.label}: ${req.url.origin} ${what}${unknown}`, secrets)
  const error7 = new NetworkError(message, error, outcomeUnknown, [
    ...(outcomeUnknown ? ['Check whether it took effect before sending it again (it was not retried)'] : []),
    ...fixesFor(code, req.url),
  ])
  // Only a sandbox on this machine can be started from here: a production URL that is down is not one.
  const local = isLoopback(req.url.hostname) && (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
  return local ? error7.withNext({port: Number(req.url.port || 80), step: 'sandbox-start'}) : error7
}

/** What to do about a failure, by its cause. */
function fixesFor(code: string | undefined, url: URL): string[] {
  if (code === 'timeout') return ['Raise the limit with --timeout <seconds>']
  if (code && TLS_ERRORS.has(code)) {
    return [
      `If ${url.host} is signed by a company or private certificate authority, point NODE_EXTRA_CA_CERTS at its PEM file and run again`,
    ]
  }

  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return [`Check the host name ${url.hostname} in the profile (opsctl profile show)`]
  if (isLoopback(url.hostname)) return []
  return [`Check that ${url.origin} is reachable from this machine (network, VPN, proxy settings)`]
}

/** Node's codes for a certificate it does not trust or that does not match the host. */
const TLS_ERRORS = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
])

function describeNetworkCode(code: string | undefined, url: URL, message: string | undefined): string {
  if (code && TLS_ERRORS.has(code)) {
    const problem = code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? `is not valid for ${url.hostname}` : code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not trusted'
    return `answered with a TLS certificate that ${problem} (${code})`
  }

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
      return `could not be reached: no address found for the host name ${url.hostname}`
    }

    case CONNECT_TIMEOUT: {
      return 'did not accept the connection in time'
    }

    default: {
      return `could not be reached (${code ?? message ?? 'network error'})`
    }
  }
}
