/**
 * `/__sandbox/webhook-deliveries`: the tenant's delivery log, from the store (every replica lists
 * the same), and a resend of one delivery: the same bytes, the same delivery id, the next attempt
 * number, made at once and logged as `resent`. Control routes: the control guard asks for the token.
 */
import type {FastifyInstance, FastifyRequest} from 'fastify'

import type {DeliveryAttempt} from './state.js'
import type {Tenant} from './tenant-runtime.js'

const failure = (statusCode: number, message: string) => Object.assign(new Error(message), {statusCode})

/** An attempt as listed: without the body it sent (a resend sends it again). */
const listed = ({body: _body, ...attempt}: DeliveryAttempt) => attempt

export function registerDeliveryRoutes(app: FastifyInstance, tenantOf: (request: FastifyRequest) => Tenant): void {
  app.get<{Querystring: {checkout?: string}}>('/__sandbox/webhook-deliveries', async (request) => {
    const {checkout} = request.query
    const attempts = await tenantOf(request).pending.attempts(typeof checkout === 'string' ? {checkoutId: checkout} : {})
    return {deliveries: attempts.map((attempt) => listed(attempt))}
  })

  app.post<{Params: {deliveryId: string}}>('/__sandbox/webhook-deliveries/:deliveryId/resend', async (request) => {
    const tenant = tenantOf(request)
    const {deliveryId} = request.params
    const earlier = await tenant.pending.attempts({deliveryId})
    const last = earlier.at(-1)
    if (!last) throw failure(404, `No webhook delivery ${deliveryId} on this tenant (opsctl webhook deliveries lists them)`)
    const attempt = last.attempt + 1
    const result = await tenant.deliveries.attempt({attempt, body: last.body, event: last.event, id: deliveryId, url: last.url})
    const resent: DeliveryAttempt = {
      ...last,
      at: tenant.clock.now().toISOString(),
      attempt,
      durationMs: result.durationMs,
      outcome: 'resent',
      status: result.status,
      ...(result.error ? {error: result.error} : {error: undefined}),
    }
    await tenant.pending.log(resent, true)
    return listed(resent)
  })
}
