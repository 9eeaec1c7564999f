/**
 * Every error a command ends with, mapped to one exit code (src/errors.ts) and one line on stderr
 * (or `{"error": ...}` under --json): a service's input error worded with the command's flags,
 * oclif's parse errors made short, a cancelled prompt, and anything else as exit 1. A dry run's
 * request ends the run too, printed as a curl.
 */
import type {ArgOwner} from './parse-error.js'

import {ExitCode, InputError, OpsError} from '../errors.js'
import {type DryRunRequest} from '../http/dry-run.js'
import {scrubSecrets} from '../http/redact.js'
import {writeError} from './error-output.js'
import {flagNamer} from './input-words.js'
import {parseUsageError} from './parse-error.js'

export function toOpsError(
  error: Error & {oclif?: {exit?: number}},
  command: ArgOwner & {inputFlags?: Readonly<Record<string, string>>},
): OpsError {
  if (error instanceof InputError) return error.worded(flagNamer(command.inputFlags))
  if (error instanceof OpsError) return error
  // oclif's multi-line parse messages, as one short line, with where to read more (./parse-error.ts).
  if (error.oclif?.exit !== undefined) return parseUsageError(error, {args: command.args, id: command.id})
  return new OpsError(`Unexpected error: ${error.message}`, ExitCode.Unexpected, ['Run again with --verbose for details'])
}

/** The error's line (the stream guard scrubs it too; writeError also covers a process whose streams it does not guard), and under --verbose the stack of an unexpected one. */
export function writeCommandError(opsError: OpsError, error: Error, {json, verbose}: {json: boolean; verbose: boolean}): void {
  writeError(opsError, json)
  if (!json && verbose && opsError.exitCode === ExitCode.Unexpected && error.stack) process.stderr.write(scrubSecrets(error.stack) + '\n')
}

/** --dry-run: the request that would have been sent, as a curl (exit 0); `logJson` under --json. */
export function printDryRun(request: DryRunRequest, logJson: ((json: unknown) => void) | undefined, note: (message: string) => void): void {
  process.exitCode = ExitCode.Ok
  if (logJson) {
    logJson({dryRun: true, request: request.request, curl: request.curl})
    return
  }

  process.stdout.write(request.curl + '\n')
  const {variables} = request
  if (variables.length > 0) note(`Note: the curl reads ${variables.map((v) => `$${v}`).join(', ')}; export ${variables.length === 1 ? 'it' : 'them'} before running it`)
}
