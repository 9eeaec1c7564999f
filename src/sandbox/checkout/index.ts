import type {SandboxModule} from '../types.js'

import {emptyCheckoutState} from './state.js'

/** Placeholder until the checkout operations land: no routes yet. */
export const checkoutModule: SandboxModule = {
  service: 'checkout',
  prefix: '/checkout',
  operations: [],
  handlers: {},
  emptyState: emptyCheckoutState,
}
