/**
 * The parts of undici the transport loads lazily. Imported here statically: in the bundle
 * (scripts/bundle.mjs) a dynamic `import('undici')` of the CommonJS package would give its default
 * export only, so every lazy `import()` names this module instead.
 *
 * `Agent` is reached through a function, not re-exported: a re-export reads it when this module is
 * evaluated, and in the bundle that loads undici's whole connection pool (agent, pool, HTTP/1 and
 * HTTP/2 clients) on every request that retries, though plain-http requests never use it.
 */
import * as undici from 'undici'

export const {interceptors} = undici

export function newAgent(): undici.Agent {
  return new undici.Agent()
}
