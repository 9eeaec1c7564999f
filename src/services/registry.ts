/**
 * The services opsctl speaks to, made known to the shared code (src/http reads their auth,
 * headers, error shapes and codes from here; src/cli their patient data): one line per service.
 * Their sandbox modules are registered the same way in src/sandbox/modules.ts.
 */
import {registerServiceModule} from '../http/services.js'
import {checkoutClientModule} from './checkout/client-module.js'
import {healthClientModule} from './health/client-module.js'

registerServiceModule(healthClientModule)
registerServiceModule(checkoutClientModule)
