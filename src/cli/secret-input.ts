/**
 * Secrets without the command line: any local user reads a process's argv (`ps`), so a secret flag
 * also takes a file (`--token-file`), and a secret given as a flag value anyway is warned about once.
 */
import {UsageError} from '../errors.js'
import {registerSecret} from '../http/secrets/registry.js'
import {readBoundedText} from '../runtime/bounded-read.js'

/** A secret file is a line: 64 KiB is far more than any key or token. */
const SECRET_FILE_LIMIT_BYTES = 64 * 1024

/** A file's text without its final line break, registered as a secret; exit 2 (nothing done) when it cannot be read or is empty. */
export async function readSecretFile(path: string, flag: string): Promise<string> {
  const text = await readBoundedText(path, {limit: SECRET_FILE_LIMIT_BYTES, name: `${flag} ${path}`})

  const secret = text.replace(/\r?\n$/, '')
  if (secret === '') throw new UsageError(`${flag}: ${path} is empty`)
  registerSecret(secret)
  return secret
}

/** Whether the flag's value was typed on the command line (not taken from its environment variable). */
export function onArgv(argv: readonly string[], flag: string): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`))
}

/** The one-line warning for a secret given as a flag's value. */
export function argvWarning(what: string, instead: string): string {
  return `Warning: ${what} on the command line is readable by every local user (ps) and lands in shell history; use ${instead}\n`
}
