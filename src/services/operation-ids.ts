import type {checkoutService} from './checkout/operations.js'
import type {healthService} from './health/operations.js'

/** Every row's id. A map or a set of operation names is typed by it, so a misspelt or removed name fails tsc. */
export type OperationId = keyof (typeof checkoutService)['operations'] | keyof (typeof healthService)['operations']
