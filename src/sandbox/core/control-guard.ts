import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

import {createHash, randomBytes, timingSafeEqual} from 'node:crypto'
import {networkInterfaces} from 'node:os'

import type {ErrorShapes} from './error-shapes.js'

/** The prefix of the emulator's own controls (clock, faults, state, reset, module controls). */
export const CONTROL_PREFIX = '/__sandbox'
/** The one control route open without the token: a liveness check that says nothing else. */
const LIVENESS = '/__sandbox/health'
/** Where a client puts the control token: `Authorization: Bearer <token>`. */
const BEARER = /^Bearer\s+(\S+)\s*$/i
/** Fetch metadata a browser sends: only a request the user typed (none) or the sandbox's own page (same-origin) may control it. */
const ALLOWED_FETCH_SITES = new Set(['none', 'same-origin'])
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i
const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]'])

export interface ControlGuardOptions {
  /** the control token every `/__sandbox/...` route but the liveness check asks for */
  token: string
  /** the address the sandbox listens on */
  host: string
  /** more host names the sandbox answers to (`--allowed-host`), e.g. a name a team reaches a shared sandbox by */
  allowedHosts?: readonly string[]
  /** refusals in the shape of the service a URL belongs to */
  errors: ErrorShapes
}

/** A fresh control token: 32 random bytes, URL-safe. */
export function newControlToken(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Two checks in front of every route, before the body is read:
 * - Host: only the names the sandbox serves (loopback names, the bound address, `--allowed-host`)
 *   are answered; anything else is 421, so a page that rebinds its own name to this machine
 *   reaches nothing. The name decides: a browser always sends the port of the URL it requests.
 * - Control routes (`/__sandbox/...`): no browser may drive them. A request with a foreign
 *   Origin or a cross-site Sec-Fetch-Site is 403, one without the token 401, and a POST/PUT
 *   whose body is not JSON 415 (an HTML form or a text/plain fetch needs no preflight).
 *   Answers to them never carry CORS headers.
 */
export function registerControlGuard(app: FastifyInstance, options: ControlGuardOptions): void {
  const names = allowedNames(options.host, options.allowedHosts ?? [])
  const expected = digest(options.token)
  const port = () => {
    const address = app.server.address()
    return typeof address === 'object' && address ? address.port : undefined
  }

  app.addHook('onRequest', (request, reply, done) => {
    const hostname = hostnameOf(request.headers.host)
    if (hostname === undefined || !names.has(hostname)) {
      return refuse(
        options.errors,
        request,
        reply,
        421,
        `This sandbox does not serve the host ${JSON.stringify(request.headers.host ?? '')}; start it with --allowed-host NAME to add one`,
      )
    }

    const route = routeOf(request)
    if (!isControl(route)) return done()
    const origin = request.headers.origin
    if (origin !== undefined && !isOwnOrigin(origin, names, port())) {
      return refuse(options.errors, request, reply, 403, 'Control routes do not answer requests from another origin')
    }

    const site = request.headers['sec-fetch-site']
    if (typeof site === 'string' && !ALLOWED_FETCH_SITES.has(site.toLowerCase())) {
      return refuse(options.errors, request, reply, 403, 'Control routes do not answer cross-site requests')
    }

    if (!(request.method === 'GET' && route === LIVENESS) && !tokenMatches(request.headers.authorization, expected)) {
      return refuse(
        options.errors,
        request,
        reply,
        401,
        'Control routes need the sandbox control token (Authorization: Bearer ...); opsctl on the same machine reads it from its config folder, elsewhere set OPSCTL_SANDBOX_TOKEN',
      )
    }

    if (
      (request.method === 'POST' || request.method === 'PUT') &&
      hasBody(request) &&
      !JSON_TYPE.test(request.headers['content-type'] ?? '')
    ) {
      return refuse(options.errors, request, reply, 415, 'Control routes take JSON bodies only (Content-Type: application/json)')
    }

    done()
  })

  // Whatever else adds CORS headers, a control answer goes without them: no page may read it.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isControl(routeOf(request))) {
      for (const name of Object.keys(reply.getHeaders())) if (name.toLowerCase().startsWith('access-control-')) reply.removeHeader(name)
    }

    done(null, payload)
  })
}

function refuse(errors: ErrorShapes, request: FastifyRequest, reply: FastifyReply, status: number, message: string): void {
  reply.code(status).send(errors.refusal(request.url, status, message, request.id))
}

/**
 * The path the router matched, not the one the client wrote: the router decodes the path
 * (`/%5F_sandbox/state` reaches the state route), so a test of the raw URL would let an encoded
 * spelling of a control route through. A path no route matched is its decoded self (a 404 follows).
 */
function routeOf(request: FastifyRequest): string {
  const matched = request.routeOptions.url
  if (matched !== undefined) return matched
  try {
    return decodeURIComponent(pathOf(request.url))
  } catch {
    return pathOf(request.url)
  }
}

function isControl(url: string): boolean {
  return url === CONTROL_PREFIX || url.startsWith(`${CONTROL_PREFIX}/`) || url.startsWith(`${CONTROL_PREFIX}?`)
}

function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** Compared as digests of equal length, in constant time: the answer tells nothing of how much of a guess was right. */
function tokenMatches(authorization: string | undefined, expected: Buffer): boolean {
  const given = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1]
  return given !== undefined && timingSafeEqual(digest(given), expected)
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** `Host` without its port, lower case; `[::1]:4010` -> `[::1]`. Undefined when absent or malformed. */
function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined
  try {
    return new URL(`http://${host}`).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

function isOwnOrigin(origin: string, names: ReadonlySet<string>, port: number | undefined): boolean {
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' && names.has(url.hostname.toLowerCase()) && Number(url.port || 80) === port
  } catch {
    return false
  }
}

/** The loopback names, the bound address (every interface's address when it is 0.0.0.0 or ::), and the extra names. */
function allowedNames(host: string, extra: readonly string[]): ReadonlySet<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]'])
  const add = (name: string) => {
    const hostname = hostnameOf(name.includes(':') && !name.startsWith('[') && !/^[^:]+:\d+$/.test(name) ? `[${name}]` : name)
    if (hostname) names.add(hostname)
  }

  if (UNSPECIFIED.has(host)) {
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) add(i.address)
  } else {
    add(host)
  }

  for (const name of extra) add(name)
  return names
}
