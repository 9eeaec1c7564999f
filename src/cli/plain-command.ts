import type {Interfaces} from '@oclif/core'

import {Command} from '@oclif/core/command'

import {writeError} from './error-output.js'
import {parseUsageError} from './parse-error.js'

/**
 * oclif's Command for the few commands that are not BaseCommand's (help, autocomplete, complete:
 * they read oclif's whole Config and none of a profile). Input the parser refuses gets the one
 * short line and exit 2 of every other command, not oclif's handler: its own format, then help
 * for the same words, and for help's word that names nothing, two stack traces and exit 1.
 */
export abstract class PlainCommand extends Command {
  /** `parse()`'s answer, or undefined when the input was refused (the error written, exit code 2 set). */
  protected async parseOrRefuse<Parsed>(
    parse: () => Promise<Parsed>,
    command: {args?: Interfaces.ArgInput; flags?: Interfaces.FlagInput},
  ): Promise<Parsed | undefined> {
    try {
      return await parse()
    } catch (error) {
      // argv was read, and refused: else oclif warns (outside production) that it never was
      this.parsed = true
      // Loaded only here, as BaseCommand does: its string-distance package builds an Intl.Collator when loaded.
      const {unknownFlagError} = await import('./unknown-flag.js')
      writeError(
        unknownFlagError(error, {flags: command.flags, id: this.id}) ?? parseUsageError(error, {args: command.args, id: this.id}),
        false,
      )
      process.exitCode = 2
      return undefined
    }
  }
}
