import type {Operation} from '../../http/operation.js'

import {SANDBOX_KEYS} from '../../services/sandbox-defaults.js'
import {type SandboxContext, SandboxError} from '../types.js'
import {readCookie, SESSION_COOKIE} from './sessions.js'

export const SUPPORTED_HEALTH_VERSIONS = new Set(['3.14.0'])

type Headers = Record<string, string | string[] | undefined>

/** Checks a health request as the spec says; returns the signed-in user for session operations. */
export function authenticateHealth(op: Operation, headers: Headers, ctx: SandboxContext): string | undefined {
  const version = headers['x-ph-api-version']
  if (!version) throw new SandboxError(400, 'API_VERSION_REQUIRED', 'The x-ph-api-version header is required')
  if (!SUPPORTED_HEALTH_VERSIONS.has(String(version))) {
    throw new SandboxError(400, 'API_VERSION_UNSUPPORTED', `API version ${version} is not supported; use 3.14.0`)
  }

  const sid = readCookie(headers.cookie, SESSION_COOKIE)
  if (op.auth !== 'session') return sid ? ctx.sessions.lookup(sid) : undefined
  if (!sid) throw new SandboxError(401, 'UNAUTHORIZED', 'Sign in required: no connect.sid session cookie')
  const userId = ctx.sessions.lookup(sid)
  if (!userId) throw new SandboxError(401, 'SESSION_EXPIRED', 'The session is unknown or has expired; sign in again')
  return userId
}

/**
 * Who may reach another user's data (`userId` in the path): the module's own rule, which throws
 * to refuse. Without one, only the caller's own data.
 */
export type UserAccessRule = (op: Operation, targetId: string, callerId: string, ctx: SandboxContext) => void

/** Replaces `me` in a userId param, then applies the access rule (by default: someone else's data is 403). */
export function authorizeUserParam(
  params: Record<string, string>,
  userId: string | undefined,
  access?: {ctx: SandboxContext; op: Operation; rule: UserAccessRule},
): void {
  if (params.userId === undefined || userId === undefined) return
  if (params.userId === 'me') params.userId = userId
  if (access) return access.rule(access.op, params.userId, userId, access.ctx)
  if (params.userId !== userId) throw new SandboxError(403, 'FORBIDDEN', "You may not access another user's data")
}

/** The default tenant's checkout keys: the published test keys (a Map: the key looked up is whatever a client sends). */
const KEYS = new Map<string, 'public' | 'secret'>([
  [SANDBOX_KEYS.publicKey, 'public'],
  [SANDBOX_KEYS.secretKey, 'secret'],
])

/** The kind of a key when it is one of a tenant's (core/tenants.ts), else undefined. */
export type KeyKindOf = (key: string) => 'public' | 'secret' | undefined

export const publishedKeyKind: KeyKindOf = (key) => KEYS.get(key)

export class CheckoutAuthError extends SandboxError {}

/**
 * Basic auth with the API key as user name. Real clients send `base64(key:)` or `base64(key)`;
 * both are accepted. K001 missing, K003 unknown key, K004 the wrong kind of key for the route.
 */
export function authenticateCheckout(op: Operation, headers: Headers, kindOf: KeyKindOf = publishedKeyKind): 'public' | 'secret' {
  const key = keyOf(headers.authorization)
  if (key === undefined) throw new CheckoutAuthError(401, 'K001', 'Missing or malformed Authorization header: use Basic auth with an API key')
  const kind = kindOf(key)
  if (!kind) throw new CheckoutAuthError(401, 'K003', 'Invalid API key')
  if (op.auth !== 'none' && kind !== op.auth) {
    throw new CheckoutAuthError(401, 'K004', `This operation needs the ${op.auth} key, not the ${kind} key`)
  }

  return kind
}

/** The kind of checkout key an Authorization header carries: undefined when there is none, or it is not one of the tenant's keys. */
export function checkoutKeyKind(header: string | string[] | undefined, kindOf: KeyKindOf = publishedKeyKind): 'public' | 'secret' | undefined {
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
