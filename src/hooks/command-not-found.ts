import type {Hook} from '@oclif/core'

import {writeError} from '../cli/error-output.js'
import {hints} from '../cli/hints.js'
import {commandCandidates, notFoundError} from '../cli/not-found.js'
import {UsageError} from '../errors.js'

/**
 * Answers a mistyped command or topic the same way in every mode (terminal or not): one line
 * naming the nearest command or topic, exit 2, `{"error": ...}` under --json. It never asks and
 * never runs the guess: `customize remov --yes` followed by Enter must change nothing.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  if (opts.id.startsWith('-')) {
    writeError(flagFirstError(opts.id, opts.argv ?? []), (opts.argv ?? []).includes('--json'))
    process.exitCode = 2
    return
  }

  // oclif's id holds every leading word before the first flag ("evnts:list:me"); words after a flag are not part of it.
  writeError(notFoundError(opts.id.split(':'), commandCandidates(opts.config)), (opts.argv ?? []).includes('--json'))
  process.exitCode = 2
}

export default hook

/** Flags that take a value, as they may be typed before the command (`opsctl -p staging checkout list`). */
const VALUE_FLAGS = new Set(['-p', '--profile', '-o', '--output', '--timeout', '--query', '--columns'])

/** `opsctl -p sandbx checkout get x`: oclif reads `-p` as the command; say where flags go, with the line put right. */
function flagFirstError(flag: string, rest: string[]): UsageError {
  const [name] = flag.split('=')
  const takesValue = VALUE_FLAGS.has(name) && !flag.includes('=')
  const value = takesValue ? rest.slice(0, 1) : []
  const words = takesValue ? rest.slice(1) : rest
  const line = ['opsctl', ...words, flag, ...value].join(' ')
  return new UsageError(`${name} goes after the command: ${line}`, [hints.help(undefined)])
}
