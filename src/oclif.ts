/** oclif as bin/run.js starts it: from the bundle, so that commands share this one copy. */
// oclif's parts, not its index: the index loads every part of oclif (the parser, the command, the
// flags...), which help, a topic or a typo do not use.
import {settings} from '@oclif/core/settings'

// opsctl always runs its built dist/. Without this, oclif looks for TypeScript sources (loading the
// TypeScript compiler, 9 MB) whenever NODE_ENV is "test" or "development", as it is under vitest.
settings.enableAutoTranspile = false

export {execute} from '@oclif/core/execute'
