/**
 * A NUL character in a path parameter or a query value (`%00`): no id or filter holds one, and
 * PostgreSQL refuses it in a text parameter ("invalid byte sequence"), so it is answered before
 * any route reads the database, the same on both engines: a path parameter with one names nothing
 * (404), a query value with one is a 400 naming the parameter. A URL that does not decode at all
 * (invalid UTF-8) is fastify's `frameworkErrors`, a 400 (server.ts).
 */
import type {FastifyInstance} from 'fastify'

import type {ErrorShapes} from './error-shapes.js'

const NUL = '\u0000'

const holdsNul = (value: unknown): boolean =>
  typeof value === 'string' ? value.includes(NUL) : Array.isArray(value) && value.some((item) => holdsNul(item))

export function registerTextChecks(app: FastifyInstance, errors: ErrorShapes): void {
  app.addHook('onRequest', (request, reply, done) => {
    const params = (request.params ?? {}) as Record<string, unknown>
    const param = Object.keys(params).find((name) => holdsNul(params[name]))
    if (param !== undefined) {
      reply.code(404).send(errors.refusal(request.url, 404, `Not found: the ${param} in the path holds a NUL character`, request.id))
      return
    }

    const query = (request.query ?? {}) as Record<string, unknown>
    const key = Object.keys(query).find((name) => name.includes(NUL) || holdsNul(query[name]))
    if (key !== undefined) {
      reply.code(400).send(errors.refusal(request.url, 400, `Invalid query: ${JSON.stringify(key)}: holds a NUL character`, request.id))
      return
    }

    done()
  })
}
