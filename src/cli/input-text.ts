/**
 * Checks of text a command sends, made while argv is read (exit 2, before any request, the `me`
 * lookup included): an id becomes a path segment, so it must be one visible token; a text
 * such as `--reason` must say something.
 */
import * as Args from '@oclif/core/args'

/**
 * Characters that show as nothing or as space: separators (spaces, line breaks), controls, format
 * characters (zero-width spaces and joiners, bidi marks, the BOM, the soft hyphen) and the blank
 * letters (Hangul fillers, the Braille blank) that fonts draw empty.
 */
const BLANK = /[\p{Z}\p{Cc}\p{Cf}\u115F\u1160\u2800\u3164\uFFA0]/u
const ONLY_BLANK = /^[\p{Z}\p{Cc}\p{Cf}\u115F\u1160\u2800\u3164\uFFA0]*$/u

/** The value as the error shows it: quoted, escaped, and short. */
function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value).replaceAll(/\p{Cf}|[\u115F\u1160\u2800\u3164\uFFA0]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
}

/** Why `value` cannot be an id in a URL path, or undefined. */
export function idProblem(value: string): string | undefined {
  if (value === '') return 'it is empty'
  if (BLANK.test(value)) return 'it contains a space, a control or an invisible character'
  if (value === '.' || value === '..') return 'it is a path segment, not an id'
  if (/[/\\]/.test(value)) return 'it contains a slash'
  if (/%[\da-f]{2}/i.test(value)) return 'it contains a percent-encoded character (such as %2e or %2f)'
  return undefined
}

/** A required positional id, refused while argv is read when it cannot be one (`what` names it in the error). */
export function idArg(description: string, what = description.split(',')[0]) {
  return Args.string({
    description,
    async parse(value) {
      const problem = idProblem(value)
      if (problem) throw new Error(`Invalid ${what} ${shown(value)}: ${problem}; nothing was sent`)
      return value
    },
    required: true,
  })
}

/**
 * The parse step of a flag whose text must show something: not empty, not only spaces or
 * invisible characters (oclif's message names the flag).
 */
export function visibleText(): (value: string) => Promise<string> {
  return async (value) => {
    if (ONLY_BLANK.test(value)) throw new Error(`must say something; ${shown(value)} is empty or invisible`)
    return value
  }
}

/**
 * The parse step of a currency flag: three letters (ISO 4217), sent in capitals; anything else
 * (empty, a symbol, a name) is refused while argv is read, before any read or change is sent.
 */
export function currencyCode(): (value: string) => Promise<string> {
  return async (value) => {
    const code = value.trim()
    if (!/^[A-Za-z]{3}$/.test(code)) throw new Error(`must be a three-letter currency code such as PHP; ${shown(value)} is not one`)
    return code.toUpperCase()
  }
}
