import type {FastifyInstance, FastifyRequest} from 'fastify'

import type {SandboxStore} from './store.js'
import type {Tenant} from './tenant-runtime.js'

import {SANDBOX_STATE_LIMIT_BYTES} from '../../services/sandbox-defaults.js'
import {StateDocumentError} from './state-document.js'
import {dumpState, loadState} from './state.js'

/** A whole state can be far larger than a request of the services (BODY_LIMIT); why this size: SANDBOX_STATE_LIMIT_BYTES. */
export const STATE_BODY_LIMIT = SANDBOX_STATE_LIMIT_BYTES

interface StateDeps {
  store: SandboxStore
  /** signs everyone of the tenant out: what an import does unless asked to keep the sessions */
  dropSessions(tenant: Tenant): Promise<void>
  /** the tenant the request's URL names: its state alone is exported or replaced */
  tenantOf(request: FastifyRequest): Tenant
}

/**
 * `/__sandbox/state`: the whole state as one document (core/state-document.ts). GET exports it;
 * PUT replaces the state with a document (an export, or a JSON state file of the earlier format),
 * all or nothing, committed before the answer like any change: every record is checked first
 * (the module states' `load`), and the first bad one is answered 400 with its path, the state
 * left as it was. A body over STATE_BODY_LIMIT is answered 413 before it is read whole.
 * Deliveries still due are dropped with the state they belonged to. The sessions of the document
 * are dropped too unless the URL asks to keep them (`?keepSessions=true`): an export of one
 * tenant imported into another must not let the first one's cookies sign in to the second.
 */
export function registerStateRoutes(app: FastifyInstance, deps: StateDeps): void {
  app.get('/__sandbox/state', async (request) => dumpState(deps.tenantOf(request).states))
  app.put('/__sandbox/state', {bodyLimit: STATE_BODY_LIMIT}, async (request) => {
    const tenant = deps.tenantOf(request)
    try {
      await loadState(deps.store, tenant.states, request.body)
    } catch (error) {
      if (error instanceof StateDocumentError) {
        throw Object.assign(new Error(`Not a valid sandbox state: ${error.message}`), {statusCode: 400})
      }

      throw error
    }

    await tenant.pending.clear()
    const keepSessions = (request.query as Record<string, unknown>).keepSessions === 'true'
    if (!keepSessions) await deps.dropSessions(tenant)
    return {imported: true, keptSessions: keepSessions}
  })
}
