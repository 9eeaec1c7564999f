import {UsageError} from '../errors.js'
import {pathParams} from './operation.js'

export type QueryValue = boolean | number | string | undefined | (boolean | number | string)[]

/**
 * Fills `{param}` placeholders, each value URI-encoded. A missing value is a usage error, and so
 * is `.` or `..`: encoding leaves them as they are and URL parsing would resolve them as dot
 * segments, so `refund get <id> ..` would fetch the checkout instead of a refund.
 */
export function expandPath(template: string, params: Record<string, string | undefined> = {}): string {
  for (const name of pathParams(template)) {
    const value = params[name]
    if (value === undefined || value === '') throw new UsageError(`Missing value for path parameter ${name}`)
    if (value === '.' || value === '..') throw new UsageError(`Invalid value "${value}" for path parameter ${name}`)
  }

  return template.replaceAll(/{(\w+)}/g, (_, name: string) => encodeURIComponent(params[name] as string))
}

/**
 * Joins a base URL and a path, keeping the base URL's own path:
 * `https://host/checkout` + `/v1/checkouts` = `https://host/checkout/v1/checkouts`.
 * Arrays become repeated keys (`name=a&name=b`); undefined values are left out.
 */
export function buildUrl(baseUrl: string, path: string, query: Record<string, QueryValue> = {}): URL {
  let base: URL
  try {
    base = new URL(baseUrl)
  } catch {
    throw new UsageError(`Invalid base URL: ${baseUrl}`).withNext({step: 'profile-add', flag: 'base-urls'})
  }

  // A raw path (`opsctl api checkout GET '/v1/x?a=b'`) may carry its own query; setting it as
  // the pathname would send the `?` encoded as part of the path. Operation paths never contain
  // one: expandPath encodes it.
  const q = path.indexOf('?')
  const pathOnly = q === -1 ? path : path.slice(0, q)
  const url = new URL(base.origin)
  url.pathname = base.pathname.replace(/\/+$/, '') + (pathOnly.startsWith('/') ? pathOnly : `/${pathOnly}`)
  if (q !== -1) url.search = path.slice(q + 1)
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v))
  }

  return url
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1'])

export function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(?:\.\d{1,3}){3}$/.test(hostname)
}

/** Credentials travel over plain HTTP only to this machine. */
export function assertSafeTransport(url: URL, carriesCredential: boolean): void {
  if (carriesCredential && url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(
      `Refusing to send credentials over plain HTTP to ${url.host}; use an https:// base URL (plain http is allowed only for loopback)`,
    ).withNext({step: 'profile-add', flag: 'base-urls'})
  }
}
