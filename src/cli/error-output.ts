import {formatErrorForHuman, type OpsError} from '../errors.js'
import {scrubSecrets} from '../http/redact.js'

/**
 * Writes a failure the one way every part of the CLI does: `{"error": {...}}` under --json (exact
 * values), else "Error: ..." with its "Try this:" lines, control characters escaped; on stderr,
 * scrubbed of secrets either way (before escaping: a secret is found as it was registered).
 */
export function writeError(error: OpsError, json: boolean): void {
  const text = json ? JSON.stringify({error: {name: error.name, ...error.toJSON()}}, null, 2) : formatErrorForHuman(error, (t) => scrubSecrets(t))
  process.stderr.write(scrubSecrets(text) + '\n')
}
