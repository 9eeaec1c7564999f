/**
 * undici's connection pool (Agent: pools, HTTP/1 and HTTP/2 clients, the WebAssembly parser), for
 * https and for a transport's private pool. Plain-http requests never need it (./carrier.ts), so
 * the bundle keeps it in a chunk of its own that only this module and ./loopback-direct.ts load.
 */
import * as undici from 'undici'

export function newAgent(): undici.Agent {
  return new undici.Agent()
}
