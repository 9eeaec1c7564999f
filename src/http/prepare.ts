import type {OutboundBody, OutboundRequest} from './transport.js'

import {UsageError} from '../errors.js'
import {hasSecretField, isSecretHeader, redactBody, scrubSecrets} from './redact.js'
import {registerSecret} from './secrets/registry.js'
import {registerBodySecrets, registerHeaderSecrets} from './secrets/sources.js'
import {assertSafeTransport, isUnderBase} from './url.js'
import {USER_AGENT} from './user-agent.js'

/** A request as it would leave: what both transports (sending and dry run) start from. */
export interface PreparedRequest {
  /** Every header, credentials included. */
  headers: Record<string, string>
  /** The headers without the ones the auth sets. */
  plainHeaders: Record<string, string>
  payload?: Buffer | string
  /** The credentials this request carries, for scrubbing what comes back. */
  secrets: string[]
}

/**
 * Registers every secret the request carries (before anything can show it), refuses credentials
 * outside the base URL they belong to and over plain http to another machine, and builds the headers: the user-agent, accept and
 * content-type here, the caller's in lower case (so that the auth replaces a caller's
 * `Authorization` instead of travelling next to it), and the auth's last.
 */
export function prepareRequest(req: OutboundRequest): PreparedRequest {
  const secrets = req.auth?.secrets ?? []
  for (const secret of secrets) registerSecret(secret)
  // The last word on where a credential goes, whoever built the URL: only under its own base URL.
  if (secrets.length > 0 && req.auth?.scope !== undefined && !isUnderBase(req.url, req.auth.scope)) {
    throw new UsageError(`Refusing to send the credentials of ${req.auth.scope} to ${req.url.origin}${req.url.pathname}, outside it; nothing was sent`)
  }

  const fields = bodyFields(req.body)
  registerBodySecrets(fields)
  registerHeaderSecrets(req.headers ?? {})
  // A credential is a key or session, a password or card number in the body, or a caller's own auth header.
  const callerCredential = Object.keys(req.headers ?? {}).some((k) => isSecretHeader(k))
  assertSafeTransport(req.url, secrets.length > 0 || hasSecretField(fields) || callerCredential)

  const {contentType, payload} = encodeBody(req.body)
  const plainHeaders: Record<string, string> = {
    accept: req.accept ?? 'application/json',
    'user-agent': USER_AGENT,
    ...(contentType === undefined ? {} : {'content-type': contentType}),
    ...Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
  }
  const authHeaders = req.auth?.headers ?? {}
  for (const name of Object.keys(authHeaders)) delete plainHeaders[name]
  return {headers: {...plainHeaders, ...authHeaders}, payload, plainHeaders, secrets}
}

/** The body as a trace or a dry run may show it: secret-looking fields replaced, text scrubbed. */
export function shownBody(body: OutboundBody | undefined): unknown {
  if (body === undefined) return undefined
  if ('json' in body) return redactBody(body.json)
  if ('form' in body) return redactBody(body.form)
  return scrubSecrets(String(body.raw))
}

function bodyFields(body: OutboundBody | undefined): unknown {
  if (body === undefined || 'raw' in body) return undefined
  return 'json' in body ? body.json : body.form
}

function encodeBody(body: OutboundBody | undefined): {contentType?: string; payload?: Buffer | string} {
  if (body === undefined) return {}
  if ('json' in body) return body.json === undefined ? {} : {contentType: 'application/json', payload: JSON.stringify(body.json)}
  if ('form' in body) return {contentType: 'application/x-www-form-urlencoded', payload: new URLSearchParams(body.form).toString()}
  return {contentType: body.contentType, payload: body.raw}
}
