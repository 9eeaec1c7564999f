/**
 * The routes of the tables: each module's operations served under its prefix. A route answers the
 * sandbox's injected failures (`--latency`, `--fail-rate`, a fault of its tenant's queue), asks the
 * module who calls (`authenticate`), validates the body and query by the row's schemas, and
 * answers what its handler returns with the row's status (answer.ts).
 */
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

import {setTimeout as sleep} from 'node:timers/promises'

import type {Operation} from '../../http/operation.js'

import {type Handler, SandboxError, type SandboxModule} from '../types.js'
import {answer} from './answer.js'
import {type ErrorShapes, fieldsOf} from './error-shapes.js'
import {scopeOf} from './request-scope.js'

/** What the sandbox injects into every operation (`sandbox start --latency`, `--fail-rate`). */
export interface Injected {
  /** added to every service request */
  latencyMs?: number
  /** share of service requests answered 503 with Retry-After: 1 */
  failRate?: number
}

export function registerOperation(
  app: FastifyInstance,
  m: SandboxModule,
  op: Operation,
  handler: Handler,
  errors: ErrorShapes,
  injected: Injected,
): void {
  const url = m.prefix + op.path.replaceAll(/{(\w+)}/g, ':$1')
  app.route({
    method: op.method,
    url,
    // the tenant's lock and clock are taken in the handler, after the operation's faults (request-scope.ts)
    config: {operation: true},
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const scope = scopeOf(request)
      const {ctx} = scope.tenantOrDefault
      if (injected.latencyMs) await sleep(injected.latencyMs)
      if (injected.failRate && Math.random() < injected.failRate) {
        throw new SandboxError(503, errors.code(m, 503), 'Injected failure (--fail-rate); retry later', [], {'retry-after': '1'})
      }

      const fault = await scope.takeFault(op)
      if (fault?.kind === '500') throw new SandboxError(500, errors.code(m, 500), `Injected server error on ${op.id}`)
      if (fault?.kind === 'drop') {
        // no answer, so no onSend: that the fault was taken is saved here
        await scope.persist()
        return drop(request, reply)
      }

      const params = {...(request.params as Record<string, string>)}
      const headers = request.headers as Record<string, string | string[] | undefined>
      const {key, userId} = (await m.authenticate?.(op, {headers, params}, ctx)) ?? {}

      let body: unknown = request.body
      if (op.body) {
        const parsed = op.body.safeParse(body ?? {})
        if (!parsed.success) throw validationError(errors.code(m, 400), parsed.error.issues, 'body')
        body = parsed.data
      }

      let query = request.query as Record<string, unknown>
      if (op.query) {
        const parsed = op.query.safeParse(query ?? {})
        if (!parsed.success) throw validationError(errors.code(m, 400), parsed.error.issues, 'query')
        query = parsed.data as Record<string, unknown>
      }

      const language = typeof headers['accept-language'] === 'string' ? headers['accept-language'] : undefined
      const result = await answer(op, handler, {body, headers, key, language, params, query, userId}, ctx)
      if (fault?.kind === 'drop-after-commit') {
        // no answer, so no onSend: the change is saved here
        await scope.persist()
        return drop(request, reply)
      }

      reply.code(result.status)
      if (result.headers) reply.headers(result.headers)
      return result.status === 204 || result.body === undefined ? reply.send() : reply.send(result.body)
    },
  })
}

function validationError(code: string, issues: readonly {path: readonly PropertyKey[]; message: string}[], root: string): SandboxError {
  const fields = fieldsOf(issues, root)
  const message = `Invalid ${root}: ${fields.map((f) => `${f.field}: ${f.description}`).join('; ')}`
  return new SandboxError(400, code, message, fields)
}

/** Ends the exchange without an answer, as a crashed server or a cut network would. */
function drop(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack()
  request.raw.socket.destroy()
}
