import type {SandboxModule} from '../types.js'

import {emptyHealthState} from './state.js'

/** Placeholder until the health operations land: no routes yet. */
export const healthModule: SandboxModule = {
  service: 'health',
  prefix: '',
  operations: [],
  handlers: {},
  emptyState: emptyHealthState,
}
