/* eslint-disable @typescript-eslint/no-require-imports, no-undef, perfectionist/sort-imports --
   CommonJS on purpose: undici's modules are CommonJS, and the pools below are required only when first used. */
'use strict'
/**
 * What the bundle gets for `import ... from 'undici'` (see bundle.mjs): the parts opsctl uses,
 * without undici's index. The index also builds fetch, WebSocket, caches and cookies, and its
 * cookies module reads `globalThis.Headers`, which on Node 20 loads Node's own copy of undici and
 * compiles its WebAssembly parser: on every command that sends, before a byte was sent.
 * Run from source (tests), `undici` is the real index; both give the same classes.
 */
const Dispatcher = require('undici/lib/dispatcher/dispatcher.js')
const {parseHeaders, headerNameToString} = require('undici/lib/core/util.js')

// What undici's index does to every dispatcher: request(), stream(), pipeline()...
Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js'))

module.exports = {
  Dispatcher,
  errors: require('undici/lib/core/errors.js'),
  interceptors: {retry: require('undici/lib/interceptor/retry.js')},
  util: {headerNameToString, parseHeaders},
}
