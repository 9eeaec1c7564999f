/**
 * The exit-code contract in words: `opsctl help exit-codes` prints it. Keyed by ExitCode's names,
 * so a new code does not compile until it is described here.
 */
import {ExitCode} from '../errors.js'
import {definitionList} from './environment.js'

export const EXIT_CODE_MEANINGS: Readonly<Record<keyof typeof ExitCode, string>> = {
  Ok: 'done: the command did what it says',
  Unexpected: 'an unexpected failure (--verbose shows its stack); smoke and scenario run: a check failed',
  Usage: 'usage or invalid input: nothing was sent (an unknown flag, a bad id, a missing value with no terminal to ask in, a change not confirmed). Never an answer from a server',
  Auth: 'auth: 401 or 403, or credentials missing (sign in, or set the profile keys)',
  NotFound: 'not found: 404 or 410',
  Refused: 'refused, nothing applied: by a rule checked before sending (void window closed, a second refund, an amount over what is left, an unsupported metric) or by the service for any other 4xx answer',
  Server: 'server error: 5xx, or 429 after the retries; or an answer that cannot be read (a redirect, never followed; a body that is not JSON; a field the operation needs missing or of another type; one larger than --max-body): nothing is taken from it, and no void or refund is sent on it',
  Network: 'network, timeout, or an outcome that is unknown (the change may have been applied: read it back before trying again)',
  Interrupted: 'Ctrl-C: at a prompt (nothing was sent), or while a command runs (it ends by SIGINT, which the shell reports as 130; a change waiting for its answer is audited as unknown first). sandbox start and webhook listen stop cleanly on Ctrl-C and exit 0',
}

/** The table as `opsctl help exit-codes` prints it, descriptions wrapped within `width` columns. */
export function exitCodesHelp(width = 80): string {
  const codes = (Object.keys(ExitCode) as (keyof typeof ExitCode)[]).sort((a, b) => ExitCode[a] - ExitCode[b])
  const rows = definitionList(codes.map((name) => [String(ExitCode[name]), EXIT_CODE_MEANINGS[name]]), width)
  return ['EXIT CODES', ...rows, '', 'Under --json a failure also writes {"error": {..., "exitCode": N}} on stderr.', ''].join('\n')
}
