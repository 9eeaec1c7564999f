/** oclif as bin/run.js starts it: from the bundle, so that commands share this one copy. */
import {settings} from '@oclif/core'

// opsctl always runs its built dist/. Without this, oclif looks for TypeScript sources (loading the
// TypeScript compiler, 9 MB) whenever NODE_ENV is "test" or "development", as it is under vitest.
settings.enableAutoTranspile = false

export {execute} from '@oclif/core'
