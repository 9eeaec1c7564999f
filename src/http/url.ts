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
 * A path with a dot segment (`..`, `%2e%2e`, `.%2E`, with `/` or `\\`, encoded once or more)
 * is refused: URL parsing would resolve it, and the request, with the profile's credential,
 * would leave the base path (another tenant's `/r/ok/tenantB/...`). Exit 2, nothing sent.
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
  if (hasDotSegment(pathOnly)) {
    throw new UsageError(`Invalid path ${path}: "." and ".." segments (in any encoding) are refused, requests stay under ${base.href}; nothing was sent`)
  }

  const url = new URL(base.origin)
  url.pathname = base.pathname.replace(/\/+$/, '') + (pathOnly.startsWith('/') ? pathOnly : `/${pathOnly}`)
  if (!isUnderBase(url, base)) throw new UsageError(`Invalid path ${path}: it leaves ${base.href}; nothing was sent`)
  if (q !== -1) url.search = path.slice(q + 1)
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v))
  }

  return url
}

/** Percent-decodings a path may go through before something reads it as a path (a proxy, then the server). */
const DECODINGS = 3

/** True when a segment of the path, as sent or decoded up to three times, is `.` or `..` (`/` and `\\` both separate). */
export function hasDotSegment(path: string): boolean {
  // URL parsing drops tabs and newlines (`.\t.` is `..`); a server may fold fullwidth dots (U+FF0E) to dots.
  const folded = (text: string) => text.replaceAll(/[\t\n\r]/g, '').normalize('NFKC')
  let text = path
  for (let i = 0; i <= DECODINGS; i++) {
    if (folded(text).split(/[/\\]/).some((segment) => segment === '.' || segment === '..')) return true
    const decoded = percentDecoded(text)
    if (decoded === text) return false
    text = decoded
  }

  return false
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    // A stray `%` (not an escape) makes decodeURIComponent throw: decode the valid escapes only.
    return text.replaceAll(/%[\da-f]{2}/gi, (escape) => String.fromCodePoint(Number.parseInt(escape.slice(1), 16)))
  }
}

/**
 * True when `url` is the base URL or below it: same origin, and its path is the base's path or
 * continues it after a `/`. What a credential of that base may be sent to.
 */
export function isUnderBase(url: URL, base: URL | string): boolean {
  let root: URL
  try {
    root = typeof base === 'string' ? new URL(base) : base
  } catch {
    return false
  }

  if (url.origin !== root.origin) return false
  const prefix = root.pathname.replace(/\/+$/, '')
  return prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)
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
