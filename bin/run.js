#!/usr/bin/env node
// CommonJS (bin/package.json says so), like dist/: Node starts a CommonJS entry sooner than an ESM one.
'use strict'
const {join} = require('node:path')

async function main(argv) {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    // What oclif would print, without loading oclif: half the time of `opsctl --version`.
    const {versionLine} = require('../dist/version.js')
    process.stdout.write(`${await versionLine()}\n`)
    return
  }

  // Compiled code kept between runs, in opsctl's cache folder: a faster start.
  const cache = require('../dist/startup/compile-cache.js').enableCompileCache(join(__dirname, '..', 'dist'))
  // Loaded only when typed: every other start reads one file fewer.
  const args = argv.includes('--no-color') ? require('../dist/startup/no-color.js').takeNoColor(argv, process.env) : argv
  // The package's root, so that oclif does not take bin/package.json for it.
  const root = join(__dirname, '..')
  // A command found in the build's index starts without oclif's Config; help and topics go to the help start, typos to oclif.
  const direct = require('../dist/startup/direct-start.js')
  const start = direct.findDirect(args, root)
  // Help, a topic and `help ...` are shown without oclif's Config too, when they can be (src/startup/help-start.ts).
  const help = !start && direct.helpRequest(args, root)
  // Known before any of its files loads: they load from one script, its pack (src/startup/command-pack.ts).
  // Help of every kind has one pack of its own.
  if (start) cache?.usePack(start.id)
  else if (help) cache?.usePack('~help')

  // Before oclif loads: secrets on the command line and in the environment are known, and stdout and
  // stderr are scrubbed, so that nothing printed from here on (oclif's DEBUG output of argv included) shows one.
  const {registerArgv, registerEnv} = require('../dist/http/secrets/sources.js')
  const {guardFatalErrors, guardOutputStreams} = require('../dist/http/secrets/streams.js')
  registerArgv(argv)
  registerEnv(process.env)
  guardOutputStreams()
  guardFatalErrors()

  if (start && (await direct.runDirect(start, root))) return
  if (help && (await require('../dist/startup/help-start.js').runHelp(args, root, direct))) return
  const {execute} = require('../dist/oclif.js')
  await execute({args, dir: root})
}

main(process.argv.slice(2))
