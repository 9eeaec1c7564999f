/* eslint-disable @typescript-eslint/no-require-imports, no-undef --
   CommonJS on purpose: undici's modules are CommonJS. */
'use strict'
/**
 * What src/http/undici-pool.ts and src/http/loopback-direct.ts get for `import ... from 'undici'`
 * in the bundle (see bundle.mjs): ./undici-slim.cjs, the same objects, plus undici's connection
 * pools. Only those two modules import it, both lazily, so the pools, the HTTP/1 and HTTP/2
 * clients and the WebAssembly parser (most of undici) sit in a chunk that plain-http commands
 * never read.
 */
module.exports = {
  ...require('./undici-slim.cjs'),
  Agent: require('undici/lib/dispatcher/agent.js'),
  EnvHttpProxyAgent: require('undici/lib/dispatcher/env-http-proxy-agent.js'),
}
