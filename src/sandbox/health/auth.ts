/**
 * The health service's checks of a request, as the spec says: the `x-ph-api-version` header on
 * every call, the `connect.sid` session for session rows, and, for a `userId` in the path, `me`
 * replaced by the signed-in user and the module's access rule applied (access.ts).
 */
import type {Operation} from '../../http/operation.js'
import type {SandboxContext} from '../types.js'

import {authorizeUserParam, type UserAccessRule} from '../core/auth.js'
import {readCookie, SESSION_COOKIE} from '../core/sessions.js'
import {SandboxError} from '../types.js'

export const SUPPORTED_HEALTH_VERSIONS = new Set(['3.14.0'])

type Headers = Record<string, string | string[] | undefined>

/** Checks a health request as the spec says; returns the signed-in user for session operations. */
export async function authenticateHealth(op: Operation, headers: Headers, ctx: SandboxContext): Promise<string | undefined> {
  const version = headers['x-ph-api-version']
  if (!version) throw new SandboxError(400, 'API_VERSION_REQUIRED', 'The x-ph-api-version header is required')
  if (!SUPPORTED_HEALTH_VERSIONS.has(String(version))) {
    throw new SandboxError(400, 'API_VERSION_UNSUPPORTED', `API version ${version} is not supported; use 3.14.0`)
  }

  const sid = readCookie(headers.cookie, SESSION_COOKIE)
  if (op.auth !== 'session') return sid ? ctx.sessions.lookup(sid) : undefined
  if (!sid) throw new SandboxError(401, 'UNAUTHORIZED', 'Sign in required: no connect.sid session cookie')
  const userId = await ctx.sessions.lookup(sid)
  if (!userId) throw new SandboxError(401, 'SESSION_EXPIRED', 'The session is unknown or has expired; sign in again')
  return userId
}

/** The `authenticate` hook of a module with the health service's auth (the health module's, and test modules like it). */
export function healthAuthentication(rule?: UserAccessRule) {
  return async (op: Operation, request: {headers: Headers; params: Record<string, string>}, ctx: SandboxContext): Promise<{userId?: string}> => {
    const userId = await authenticateHealth(op, request.headers, ctx)
    if (op.auth === 'session') await authorizeUserParam(request.params, userId, rule && {ctx, op, rule})
    return {userId}
  }
}

/**
 * Errors in the health shape: `{code, message, elements?: [{id, field}]}` (id: what is wrong with
 * the field); the codes of refusals the core makes are the status's names.
 */
export const healthErrors = {
  body: (error: SandboxError) => ({
    code: error.code,
    message: error.message,
    ...(error.fields.length > 0 ? {elements: error.fields.map((f) => ({id: f.description, field: f.field}))} : {}),
  }),
}

/** Every health answer says its request id and the language it answered in. */
export function healthAnswerHeaders(request: {headers: Headers; id: string}): Record<string, string> {
  const language = request.headers['accept-language']
  return {
    'x-ph-api-request-id': request.id,
    'content-language': typeof language === 'string' && language ? language.split(',')[0].trim() : 'en-US',
  }
}
