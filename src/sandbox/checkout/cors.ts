/**
 * Which checkout routes a web page may call (CORS), and no more than the real service allows.
 *
 * A merchant's page calls the routes the table marks `auth: 'public'` (today only initiate
 * checkout: the spec gives the public key to it alone) with the public key, as paymaya-js-sdk
 * does. Those routes answer the browser's preflight and grant their answers to any origin (`*`,
 * without credentials: the key travels in Authorization, never in a cookie). Everything else gets
 * no grant: secret-key routes, health, the hosted page, `/__sandbox/*`. A request that carries the
 * secret key gets no grant either, even on a public route: a secret key inside a web page is a leak,
 * and the page must not be able to read anything it was answered (the route refuses it anyway,
 * 401 K004). docs/architecture.md, "Which routes a web page may call", says the same.
 */
import type {FastifyInstance} from 'fastify'

import type {ServiceDefinition} from '../../http/operation.js'

import {requestKeyKind} from '../core/request-scope.js'
import {checkoutKeyKind} from './auth.js'

/** How long a browser may reuse a preflight's answer, in seconds (Chromium keeps it 2 hours at most). */
const PREFLIGHT_MAX_AGE = '600'
/** What a page's call may set: the key and the JSON body's type (the SDK sends exactly these two). */
const ALLOWED_HEADERS = 'Authorization, Content-Type'

/** Public routes by the URL the core registers them at (`/checkout/v1/checkouts`), with their methods. */
function publicRoutes(prefix: string, service: ServiceDefinition): Map<string, string[]> {
  const routes = new Map<string, string[]>()
  for (const op of service.list) {
    if (op.auth !== 'public') continue
    const url = prefix + op.path.replaceAll(/{(\w+)}/g, ':$1')
    routes.set(url, [...(routes.get(url) ?? []), op.method])
  }

  return routes
}

/** Preflight answers on each public route, and the grant on their answers to a page. */
export function registerCors(app: FastifyInstance, prefix: string, service: ServiceDefinition): void {
  const routes = publicRoutes(prefix, service)

  for (const [url, methods] of routes) {
    app.options(url, (request, reply) => {
      const asked = request.headers['access-control-request-method']
      // Not a preflight for one of this route's methods: the same 404 as before there was a route.
      if (!request.headers.origin || typeof asked !== 'string' || !methods.includes(asked.toUpperCase())) return reply.callNotFound()
      reply
        .code(204)
        .headers({
          'access-control-allow-origin': '*',
          'access-control-allow-methods': methods.join(', '),
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-max-age': PREFLIGHT_MAX_AGE,
        })
        .send()
    })
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const methods = routes.get(request.routeOptions.url ?? '')
    if (methods?.includes(request.method)) {
      reply.header('vary', 'Origin')
      if (request.headers.origin !== undefined && checkoutKeyKind(request.headers.authorization, (key) => requestKeyKind(request, key)) !== 'secret') {
        reply.header('access-control-allow-origin', '*')
      }
    }

    done(null, payload)
  })
}
