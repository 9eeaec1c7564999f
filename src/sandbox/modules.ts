import {checkoutModule} from './checkout/index.js'
import {healthModule} from './health/index.js'

export const sandboxModules = [healthModule, checkoutModule] as const
