/**
 * The checkout service's checks of a request: HTTP Basic with the API key as user name; the
 * sandbox accepts the keys of the tenant the URL names (the published test keys for the default
 * tenant, core/tenant-runtime.ts). Its refusals have a shape of their own:
 * `{error, code, reference}` (K001 missing, K003 unknown key, K004 the wrong kind of key).
 */
import type {Operation} from '../../http/operation.js'

import {type KeyKindOf, type SandboxContext, SandboxError} from '../types.js'

type Headers = Record<string, string | string[] | undefined>

export class CheckoutAuthError extends SandboxError {}

/**
 * Basic auth with the API key as user name. Real clients send `base64(key:)` or `base64(key)`;
 * both are accepted. K001 missing, K003 unknown key, K004 the wrong kind of key for the route.
 */
export function authenticateCheckout(op: Operation, headers: Headers, kindOf: KeyKindOf): 'public' | 'secret' {
  const key = keyOf(headers.authorization)
  if (key === undefined) throw new CheckoutAuthError(401, 'K001', 'Missing or malformed Authorization header: use Basic auth with an API key')
  const kind = kindOf(key)
  if (!kind) throw new CheckoutAuthError(401, 'K003', 'Invalid API key')
  if (op.auth !== 'none' && kind !== op.auth) {
    throw new CheckoutAuthError(401, 'K004', `This operation needs the ${op.auth} key, not the ${kind} key`)
  }

  return kind
}

/** The `authenticate` hook of a module with the checkout service's auth: a row without auth takes no key. */
export function checkoutAuthentication(op: Operation, request: {headers: Headers}, ctx: SandboxContext): {key?: 'public' | 'secret'} {
  return op.auth === 'none' ? {} : {key: authenticateCheckout(op, request.headers, ctx.apiKeyKind)}
}

/** The kind of checkout key an Authorization header carries: undefined when there is none, or it is not one of the tenant's keys. */
export function checkoutKeyKind(header: string | string[] | undefined, kindOf: KeyKindOf): 'public' | 'secret' | undefined {
  const key = keyOf(header)
  return key === undefined ? undefined : kindOf(key)
}

/** The API key of a Basic Authorization header; undefined when the header is missing or malformed. */
function keyOf(header: string | string[] | undefined): string | undefined {
  const match = typeof header === 'string' ? /^Basic\s+(\S+)$/i.exec(header.trim()) : null
  if (!match) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  return decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : decoded
}

/** The codes of refusals the core makes (404 route, 413 body, 415 type, 503 fault...). */
function codeForStatus(status: number): string {
  if (status === 404) return 'PY0404'
  if (status === 413) return 'PY0413'
  if (status === 415) return 'PY0415'
  if (status === 429) return 'PY0429'
  if (status === 503) return 'PY0503'
  return status >= 500 ? 'PY0500' : 'PY0001'
}

/** Errors in the checkout shape: `{code, message, parameters?: [{field, description}], reference}`; auth refusals `{error, code, reference}`. */
export const checkoutErrors = {
  body(error: SandboxError, requestId: string): unknown {
    if (error instanceof CheckoutAuthError) return {error: error.message, code: error.code, reference: requestId}
    return {code: error.code, message: error.message, ...(error.fields.length > 0 ? {parameters: error.fields} : {}), reference: requestId}
  },
  codeForStatus,
}

/** Every checkout answer says its request id. */
export function checkoutAnswerHeaders(request: {id: string}): Record<string, string> {
  return {'x-request-id': request.id}
}
