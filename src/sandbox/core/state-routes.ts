import type {FastifyInstance} from 'fastify'

import type {ModuleState} from '../types.js'
import type {SandboxStore} from './store.js'

import {StateDocumentError} from './state-document.js'
import {dumpState, loadState, type PendingDeliveries} from './state.js'

/** A whole state can be far larger than a request of the services (BODY_LIMIT). */
export const STATE_BODY_LIMIT = 1024 * 1024 * 1024

interface StateDeps {
  states: ReadonlyMap<string, ModuleState>
  store: SandboxStore
  pending: PendingDeliveries
}

/**
 * `/__sandbox/state`: the whole state as one document (core/state-document.ts). GET exports it;
 * PUT replaces the state with a document (an export, or a JSON state file of the earlier format),
 * all or nothing, committed before the answer like any change. Deliveries still due are dropped
 * with the state they belonged to.
 */
export function registerStateRoutes(app: FastifyInstance, deps: StateDeps): void {
  app.get('/__sandbox/state', async () => dumpState(deps.states))
  app.put('/__sandbox/state', {bodyLimit: STATE_BODY_LIMIT}, async (request) => {
    try {
      loadState(deps.store, deps.states, request.body)
    } catch (error) {
      if (error instanceof StateDocumentError) {
        throw Object.assign(new Error(`Not a sandbox state document: ${error.message}`), {statusCode: 400})
      }

      throw error
    }

    deps.pending.clear()
    return {imported: true}
  })
}
