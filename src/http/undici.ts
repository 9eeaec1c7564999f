/**
 * The parts of undici the transport loads lazily (the retry interceptor). Imported here statically:
 * in the bundle (scripts/bundle.mjs) a dynamic `import('undici')` of the CommonJS package would give
 * its default export only, so every lazy `import()` names this module (or ./undici-pool.ts) instead.
 */
import * as undici from 'undici'

export const {interceptors} = undici
