import type {FastifyInstance, FastifyRequest} from 'fastify'

import type {Tenant} from './tenant-runtime.js'

import {clockTimeProblem} from '../../services/clock-bounds.js'
import {parseDuration} from '../../services/duration.js'
import {ClockMoveError} from './clock.js'
import {FaultScript, MAX_PENDING_FAULTS} from './faults.js'

interface ControlDeps {
  /** the tenant the request's URL names */
  tenantOf(request: FastifyRequest): Tenant
  onReset(tenant: Tenant): Promise<void>
  /** The tenant's clock moved by `ms` (in the request's transaction): what falls due on the way happens */
  onClockMoved(tenant: Tenant, ms: number): Promise<void>
}

/**
 * `/__sandbox/...`: the emulator's own controls for tests and demos. Every one but the liveness
 * check needs the control token, and no browser may call them: control-guard.ts enforces both
 * for the whole prefix, before a handler (or a module's control route) runs. Each acts on the
 * tenant its URL names (`/t/<id>/__sandbox/...`; the default tenant's without the prefix).
 */
export function registerControlRoutes(app: FastifyInstance, deps: ControlDeps): void {
  const bad = (message: string) => Object.assign(new Error(message), {statusCode: 400})
  const moveClock = (move: () => void) => {
    try {
      move()
    } catch (error) {
      if (error instanceof ClockMoveError) throw bad(error.message)
      throw error
    }
  }

  // Open without the token (control-guard.ts), so it says only that the sandbox is up.
  app.get('/__sandbox/health', async () => ({ok: true}))

  app.get('/__sandbox/clock', async (request) => ({now: deps.tenantOf(request).clock.now().toISOString()}))
  app.post('/__sandbox/clock', async (request) => {
    const tenant = deps.tenantOf(request)
    const {clock, ctx, savedClock} = tenant
    const before = clock.offset
    const body = (request.body ?? {}) as {advance?: unknown; set?: unknown}
    if (typeof body.set === 'string') {
      const at = body.set
      if (Number.isNaN(Date.parse(at))) throw bad(`"set" must be an ISO 8601 time, got ${at}`)
      const now = ctx.clock.now()
      // what fell due on the way has happened: going back would undo it (a void before its payment)
      if (Date.parse(at) < now.getTime() && !clockTimeProblem(Date.parse(at))) throw bad(`"set" ${at} is before the clock's now, ${now.toISOString()}: the clock moves forward only (POST /__sandbox/reset starts the tenant over)`)
      moveClock(() => ctx.clock.set(at))
    } else if (typeof body.advance === 'string' || typeof body.advance === 'number') {
      const ms = typeof body.advance === 'number' ? body.advance : parseDuration(body.advance)
      if (ms === undefined) throw bad(`"advance" must be a duration such as 26h, 90m or 1d12h, got ${body.advance}`)
      moveClock(() => ctx.clock.advance(ms))
    } else {
      throw bad('Send {"set": ISO} or {"advance": "26h"}')
    }

    // saved here too (beside the clock's onMove), so a failed save fails this request and rolls the clock back
    await savedClock.set(clock.offset)
    await deps.onClockMoved(tenant, clock.offset - before)
    return {now: ctx.clock.now().toISOString()}
  })

  app.get('/__sandbox/faults', async (request) => ({pending: await deps.tenantOf(request).faults.pending()}))
  app.post('/__sandbox/faults', async (request) => {
    const {faults} = deps.tenantOf(request)
    const parsed = FaultScript.safeParse(request.body ?? {})
    if (!parsed.success)
      throw bad(`Invalid fault script: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    if (!(await faults.add(parsed.data.next))) throw bad(`At most ${MAX_PENDING_FAULTS} faults may be pending; clear them first (DELETE /__sandbox/faults)`)
    return {pending: await faults.pending()}
  })
  app.delete('/__sandbox/faults', async (request) => {
    await deps.tenantOf(request).faults.clear()
    return {pending: []}
  })

  app.get('/__sandbox/events', async (request) => ({events: await deps.tenantOf(request).events.list()}))

  app.post('/__sandbox/reset', async (request) => {
    await deps.onReset(deps.tenantOf(request))
    return {reset: true}
  })
}
