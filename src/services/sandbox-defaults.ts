/**
 * Published facts of the embedded sandbox, shared by the built-in `sandbox` profile and the
 * emulator itself. The keys are test keys: they open nothing but a local sandbox.
 */
export const SANDBOX_PORT = 4010
export const SANDBOX_ORIGIN = `http://127.0.0.1:${SANDBOX_PORT}`
export const SANDBOX_KEYS = {
  publicKey: 'pk-sandbox-Zq3Xb8Lm2Nc7Vt4Rw9Yh1Ks6',
  secretKey: 'sk-sandbox-Hd5Fg2Jk8Lp3Qw7Er1Ty6Ui4',
} as const

/** Health paths live at the origin (`/api/...`); checkout under `/checkout` (`/checkout/v1/...`). A tenant's are under `/t/<id>`. */
export function sandboxBaseUrls(origin: string, tenant?: string): {health: string; checkout: string} {
  const o = origin.replace(/\/+$/, '') + (tenant ? `/t/${tenant}` : '')
  return {health: o, checkout: `${o}/checkout`}
}

/** A sandbox tenant's id: `tn_` and 16 lowercase hex digits (one path segment, nothing to escape). */
export const SANDBOX_TENANT_ID = /^tn_[\da-f]{16}$/

/** At most this many tenants on one sandbox besides the default one (`sandbox tenant create` past it: 409). */
export const SANDBOX_MAX_TENANTS = 100

/** The longest TTL a tenant may be given (a tenant's TTL): 30 days; a tenant to keep longer is made without one. */
export const SANDBOX_MAX_TENANT_TTL_SECONDS = 30 * 86_400

/** The tenant a sandbox base URL names (`<origin>/t/<id>...`), or undefined for the default tenant's. */
export function sandboxTenantOf(baseUrl: string): string | undefined {
  let path: string
  try {
    path = new URL(baseUrl).pathname
  } catch {
    return undefined
  }

  const match = /^\/t\/([^/]+)(\/|$)/.exec(path)
  return match && SANDBOX_TENANT_ID.test(match[1]) ? match[1] : undefined
}

/**
 * The largest state document `sandbox import` sends and `PUT /__sandbox/state` reads: 256 MiB.
 * The sandbox holds the body as one string before parsing it, and V8 strings stop near 512 MiB;
 * half of that leaves a margin and still takes an export of about 500,000 events (an export of
 * 200,000 is about 100 MB, and parses to about as much heap).
 */
export const SANDBOX_STATE_LIMIT_BYTES = 256 * 1024 * 1024

/**
 * How deep a state document may nest. An export nests about ten levels (a plan's usage list);
 * walks of JSON recurse, so a document nested thousands deep is refused at import, with this limit named.
 */
export const SANDBOX_STATE_MAX_DEPTH = 64

/** How deep any JSON body sent to the sandbox may nest: the same limit, checked as the body is parsed, before any route walks it. */
export const SANDBOX_BODY_MAX_DEPTH = SANDBOX_STATE_MAX_DEPTH

/** True when a JSON value nests more than `limit` arrays or objects deep: iterative, so any depth is measured without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (typeof node !== 'object' || node === null) continue
    if (depth >= limit) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }

  return false
}
