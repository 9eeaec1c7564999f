/**
 * A service's input error worded with a command's flags: the layers below the CLI name an input
 * as they know it (`reason`, `callbackUrl`); a command names it as the person typed it.
 */
import type {InputNamer} from '../errors.js'

const kebab = (name: string): string => name.replaceAll(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/** `reason` -> `--reason`, `dryRun` -> `--dry-run`; `flags` maps an input a command spells otherwise (`{callbackUrl: 'url'}`). */
export function flagNamer(flags: Readonly<Record<string, string>> = {}): InputNamer {
  return (input) => `--${flags[input] ?? kebab(input)}`
}
