/**
 * Secrets without the command line: any local user reads a process's argv (`ps`), so a secret flag
 * also takes a file (`--token-file`), and a secret given as a flag value anyway is warned about once.
 */
// fs.promises loads on first use: importing node:fs/promises would cost every command its load (readline, file watchers)
import {promises as fs} from 'node:fs'

import {UsageError} from '../errors.js'
import {registerSecret} from '../http/secrets/registry.js'

/** A file's text without its final line break, registered as a secret; exit 2 (nothing done) when it cannot be read or is empty. */
export async function readSecretFile(path: string, flag: string): Promise<string> {
  let text: string
  try {
    text = await fs.readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }

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
