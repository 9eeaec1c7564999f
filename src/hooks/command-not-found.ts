import type {Hook} from '@oclif/core'

import {toConfiguredId} from '@oclif/core'
import levenshtein from 'fast-levenshtein'

/**
 * Without a terminal, @oclif/plugin-not-found only says the command is unknown. Scripts and CI
 * deserve the suggestion too, on one line, with the usage exit code (2). In a terminal this hook
 * stays out of the way and the plugin offers to run the suggestion.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  if (process.stdin.isTTY && process.stderr.isTTY) return
  const ids = opts.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  const best = ids.map((id) => ({distance: levenshtein.get(opts.id, id), id})).sort((a, b) => a.distance - b.distance)[0]
  const typed = toConfiguredId(opts.id, opts.config)
  const hint = best ? ` Did you mean "${toConfiguredId(best.id, opts.config)}"?` : ''
  process.stderr.write(`Error: "${typed}" is not an ${opts.config.bin} command.${hint}\n  Try this: ${opts.config.bin} help\n`)
  process.exit(2)
}

export default hook
