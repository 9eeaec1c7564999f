import type {AuthKind, Service} from './operation.js'

import {CredentialsError} from '../errors.js'

/** Everything the HTTP layer needs to reach one service as one caller. Built from the resolved profile. */
export interface ServiceTarget {
  service: Service
  baseUrl: string
  profileName?: string
  /** health: value of the `connect.sid` cookie */
  session?: string
  /** health: `x-ph-api-version`, 3.14.0 unless the profile pins another */
  apiVersion?: string
  /** health: `accept-language` (BCP 47) */
  language?: string
  publicKey?: string
  secretKey?: string
}

export const HEALTH_API_VERSION = '3.14.0'

/** Environment variables a `--dry-run` curl refers to instead of printing a secret. */
export const SECRET_ENV = {
  session: 'OPSCTL_HEALTH_SESSION',
  public: 'OPSCTL_CHECKOUT_PUBLIC_KEY',
  secret: 'OPSCTL_CHECKOUT_SECRET_KEY',
  sandboxToken: 'OPSCTL_SANDBOX_TOKEN',
} as const

export interface AuthParts {
  headers: Record<string, string>
  /** The same headers as curl arguments, secrets as `$ENV` references. */
  curlArgs: string[]
  secrets: string[]
  /** The base URL the credentials belong to: they are sent only to it and below it (prepare.ts). */
  scope?: string
}

/** Checkout keys use Basic auth with the key as user name and an empty password. */
export function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`
}

export function authFor(target: ServiceTarget, auth: AuthKind): AuthParts {
  const parts: AuthParts = {headers: {}, curlArgs: authCurlArgs(target, auth), scope: target.baseUrl, secrets: []}
  if (target.service === 'health') {
    const version = target.apiVersion ?? HEALTH_API_VERSION
    parts.headers['x-ph-api-version'] = version
    if (target.language) {
      parts.headers['accept-language'] = target.language
    }

    if (auth === 'session') {
      if (!target.session) {
        throw new CredentialsError(`No health session in profile ${target.profileName ?? ''}`.trim(), [
          `Or set ${SECRET_ENV.session}`,
        ]).withNext({step: 'sign-in'})
      }

      parts.headers.cookie = `connect.sid=${target.session}`
      parts.secrets.push(target.session)
    }

    return parts
  }

  if (auth === 'public' || auth === 'secret') {
    const key = auth === 'public' ? target.publicKey : target.secretKey
    if (!key) {
      throw new CredentialsError(`No checkout ${auth} key in profile ${target.profileName ?? ''}`.trim(), [
        `Or set ${SECRET_ENV[auth]}`,
      ]).withNext({step: 'profile-add', flag: auth === 'public' ? 'public-key' : 'secret-key'})
    }

    parts.headers.authorization = basicAuth(key)
    parts.secrets.push(key)
  }

  return parts
}

/** The auth headers as curl arguments, secrets as `$ENV` references: needs no credential, only the kind. */
export function authCurlArgs(target: ServiceTarget, auth: AuthKind): string[] {
  if (target.service === 'health') {
    return [
      `-H 'x-ph-api-version: ${target.apiVersion ?? HEALTH_API_VERSION}'`,
      ...(target.language ? [`-H 'accept-language: ${target.language}'`] : []),
      ...(auth === 'session' ? [`-H "cookie: connect.sid=$${SECRET_ENV.session}"`] : []),
    ]
  }

  return auth === 'public' || auth === 'secret' ? [`-u "$${SECRET_ENV[auth]}:"`] : []
}

/** Where each service puts the id support needs to find a request. */
export function requestIdFrom(headers: Record<string, string | string[] | undefined>, body: unknown): string | undefined {
  const header = headers['x-ph-api-request-id'] ?? headers['x-request-id']
  if (typeof header === 'string' && header) return header
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>
    for (const key of ['reference', 'requestId']) if (typeof b[key] === 'string') return b[key] as string
  }

  return undefined
}

/** Checkout error codes that mean "a business rule refused this": exit 5, not 2. */
export const REFUSAL_CODES = new Set(['PY0045', 'PY0048', 'PY0072', 'PY0073', 'PY0082', 'PY0039'])
