#!/usr/bin/env node
import module from 'node:module'

// Node 22+ caches compiled code between runs (a faster start); Node 20 has no such API.
module.enableCompileCache?.()

const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // What oclif would print, without loading oclif: half the time of `opsctl --version`.
  const {versionLine} = await import('../dist/version.js')
  process.stdout.write(`${await versionLine()}\n`)
} else {
  // Before oclif loads: secrets on the command line and in the environment are known, and stdout and
  // stderr are scrubbed, so that nothing printed from here on (oclif's DEBUG output of argv included) shows one.
  const {registerArgv, registerEnv} = await import('../dist/http/secrets/sources.js')
  const {guardFatalErrors, guardOutputStreams} = await import('../dist/http/secrets/streams.js')
  registerArgv(argv)
  registerEnv(process.env)
  guardOutputStreams()
  guardFatalErrors()

  const {execute} = await import('../dist/oclif.js')
  await execute({dir: import.meta.url})
}
