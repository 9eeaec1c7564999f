import {formatErrorForHuman, type OpsError, wrapWords} from '../errors.js'
import {scrubSecrets} from '../http/redact.js'

/**
 * Writes a failure the one way every part of the CLI does: `{"error": {...}}` under --json (exact
 * values), else "Error: ..." with its "Try this:" lines, control characters escaped; on stderr,
 * scrubbed of secrets either way (before escaping: a secret is found as it was registered).
 * In a terminal the lines are wrapped between words at its width; piped (logs, CI, grep) each
 * message stays one line.
 */
export function writeError(error: OpsError, json: boolean): void {
  const text = json ? JSON.stringify({error: {name: error.name, ...error.toJSON()}}, null, 2) : formatErrorForHuman(error, (t) => scrubSecrets(t), errorWidth())
  process.stderr.write(scrubSecrets(text) + '\n')
}

/** The width to wrap errors at: the terminal's (80 when it does not say), none when stderr is not a terminal. */
export function errorWidth(stream: Pick<NodeJS.WriteStream, 'columns' | 'isTTY'> = process.stderr): number | undefined {
  return stream.isTTY ? stream.columns || 80 : undefined
}

/** Chatter for people (notes, warnings) on stderr: in a terminal each line broken between words at its width, piped as it is. */
export function writeNote(text: string): void {
  const width = errorWidth()
  process.stderr.write(text.split('\n').flatMap((line) => wrapWords(line, width, '  ')).join('\n') + '\n')
}
