import type {FastifyInstance} from 'fastify'

import type {ModuleState} from '../types.js'
import type {SandboxStore} from './store.js'

import {SANDBOX_STATE_LIMIT_BYTES} from '../../services/sandbox-defaults.js'
import {StateDocumentError} from './state-document.js'
import {dumpState, loadState, type PendingDeliveries} from './state.js'

/** A whole state can be far larger than a request of the services (BODY_LIMIT); why this size: SANDBOX_STATE_LIMIT_BYTES. */
export const STATE_BODY_LIMIT = SANDBOX_STATE_LIMIT_BYTES

interface StateDeps {
  states: ReadonlyMap<string, ModuleState>
  store: SandboxStore
  pending: PendingDeliveries
}

/**
 * `/__sandbox/state`: the whole state as one document (core/state-document.ts). GET exports it;
 * PUT replaces the state with a document (an export, or a JSON state file of the earlier format),
 * all or nothing, committed before the answer like any change: every record is checked first
 * (the module states' `load`), and the first bad one is answered 400 with its path, the state
 * left as it was. A body over STATE_BODY_LIMIT is answered 413 before it is read whole.
 * Deliveries still due are dropped with the state they belonged to.
 */
export function registerStateRoutes(app: FastifyInstance, deps: StateDeps): void {
  app.get('/__sandbox/state', async () => dumpState(deps.states))
  app.put('/__sandbox/state', {bodyLimit: STATE_BODY_LIMIT}, async (request) => {
    try {
      loadState(deps.store, deps.states, request.body)
    } catch (error) {
      if (error instanceof StateDocumentError) {
        throw Object.assign(new Error(`Not a valid sandbox state: ${error.message}`), {statusCode: 400})
      }

      throw error
    }

    deps.pending.clear()
    return {imported: true}
  })
}
