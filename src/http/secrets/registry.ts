/**
 * The process's one list of secrets: API keys, sessions, passwords, card numbers, CVCs. Each is
 * registered when it becomes known (argv, environment, profile, stdin, request bodies, sign-in
 * answers) and `scrub()` removes it, in every form it can take on the way out, from any text:
 * the stream guard (streams.ts) runs everything written to stdout and stderr through it, and so
 * do the audit log and report files.
 *
 * A server that echoes a request shows a key as it was sent, not as it was typed: inside a Basic
 * `Authorization` header (`base64(key + ":")`), URL-encoded in a cookie or a form, and escaped by
 * every JSON layer it passes through (an echoed JSON body inside a JSON error inside a JSON trace).
 * A report shows it XML- or HTML-escaped (a JUnit test named after a step's command line:
 * `&amp;`, `&quot;`, `&#39;`). The encodings are listed once, for every secret; the escaping
 * of JSON is matched at any depth.
 */
import {escapeControlChars} from '../../control-chars.js'

export type SecretKind = 'card' | 'credential' | 'cvc'

export const REDACTED = '[REDACTED]'

/** Shorter values are too common to scrub from free text ("123" is a CVC and part of an amount): only next to their name. */
const MIN_FREE_TEXT = 4
/** Names a short secret is scrubbed after, e.g. `cvc=123`, `"cvc":"123"`, `\"password\": \"abc\"`. */
const SHORT_SECRET_CONTEXT = String.raw`(?<=(?:cvc|cvv|csc|pin|pass(?:word|wd)?|secret|key|session|connect\.sid)[\w-]*[\\"']*\s*[:=]\s*[\\"']*)`
/** What may separate the digits of a card number as typed or sent: spaces, dashes, their URL forms. */
const CARD_SEPARATOR = String.raw`(?:[\s-]|%20|\+)?`

/** Regular expression sources, each with the length of the text it stands for (longest is tried first). */
const patterns = new Map<string, number>()
let compiled: RegExp | undefined

export function registerSecret(value: string | number | undefined | null, kind: SecretKind = 'credential'): void {
  if (value === undefined || value === null) return
  const text = String(value)
  if (text.trim() === '') return
  const before = patterns.size
  const digits = text.replaceAll(/[\s-]/g, '')
  if (kind === 'card' && /^\d{13,19}$/.test(digits)) {
    // Before any literal of the same length: it also takes the separators.
    patterns.set([...digits].join(CARD_SEPARATOR), Number.MAX_SAFE_INTEGER)
  } else if (kind === 'cvc' || text.length < MIN_FREE_TEXT) {
    patterns.set(SHORT_SECRET_CONTEXT + escapeTolerant(text) + String.raw`(?![\w])`, text.length)
  } else {
    for (const form of encodedForms(text)) if (form.length >= MIN_FREE_TEXT) patterns.set(escapeTolerant(form), form.length)
  }

  if (patterns.size !== before) compiled = undefined
}

export function hasSecrets(): boolean {
  return patterns.size > 0
}

/** The text with every registered secret, in every form, replaced by [REDACTED]. */
export function scrub(text: string): string {
  if (patterns.size === 0 || text === '') return text
  compiled ??= compile()
  return text.replace(compiled, REDACTED)
}

/** For tests that run several commands in one process, as separate users. */
export function forgetSecrets(): void {
  patterns.clear()
  compiled = undefined
}

/** Every encoding a secret can take in an echo of a request that carried it (escaping aside: see escapeTolerant). */
export function encodedForms(value: string): Set<string> {
  const forms = new Set<string>()
  // A cookie value is stored URL-encoded (`s%3A...`) and shown decoded by servers that parse it.
  for (const plain of new Set([value, uriDecoded(value)])) {
    forms.add(plain)
    forms.add(encodeURIComponent(plain))
    forms.add(new URLSearchParams({v: plain}).toString().slice(2))
    // Basic auth: the key as user name with an empty password, and the key alone.
    for (const credential of [`${plain}:`, plain]) {
      const base64 = Buffer.from(credential, 'utf8').toString('base64')
      forms.add(base64)
      forms.add(base64.replace(/=+$/, ''))
      forms.add(Buffer.from(credential, 'utf8').toString('base64url'))
      forms.add(encodeURIComponent(base64))
    }

    for (const form of markupForms(plain)) forms.add(form)
    // Inside a quoted CSV or TSV field, a double quote is written twice.
    if (plain.includes('"')) forms.add(plain.replaceAll('"', '""'))
    // As a table, a report or an Error line shows it (a password with a tab on a step's command line).
    forms.add(escapeControlChars(plain))
  }

  return forms
}

/** The ways XML and HTML writers escape `&`, `<`, `>` and the two quotes (named, decimal and hex references, or quotes left as they are). */
const MARKUP_QUOTES: [string, string][] = [
  ['&quot;', '&apos;'],
  ['&quot;', '&#39;'],
  ['&quot;', "'"],
  ['"', "'"],
  ['&#34;', '&#39;'],
  ['&#x22;', '&#x27;'],
]

function markupForms(text: string): string[] {
  if (!/[&<>"']/.test(text)) return []
  return MARKUP_QUOTES.map(([quot, apos]) =>
    text.replaceAll(/[&<>"']/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': quot, "'": apos})[c]!),
  )
}

function uriDecoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * A pattern for a text as any number of escaping layers show it: punctuation preceded by
 * backslashes (`"` as `\"`, `\\\"`...; `'` as `\'`; `/` as `\/`), a backslash as one or more, and
 * a non-ASCII character as itself or as a `\uXXXX` escape.
 */
function escapeTolerant(text: string): string {
  let out = ''
  // One UTF-16 code unit at a time (split, not for-of): JSON escapes a character outside the BMP as two \uXXXX.
  for (const char of text.split('')) {
    const unit = char.codePointAt(0)!
    if (char === '\\') out += String.raw`\\+`
    else if (unit > 0x7e || unit < 0x20) {
      const hex = unit.toString(16).padStart(4, '0')
      const anyCase = [...hex].map((h) => (/[a-f]/.test(h) ? `[${h}${h.toUpperCase()}]` : h)).join('')
      out += String.raw`(?:${escapeRegExp(char)}|\\+[uU]${anyCase})`
    } else if (/[^\dA-Za-z]/.test(char)) out += String.raw`\\*` + escapeRegExp(char)
    else out += char
  }

  return out
}

function compile(): RegExp {
  // The longest form first, so that a padded base64 form is removed whole rather than all but its `=`.
  const sorted = [...patterns].sort((a, b) => b[1] - a[1]).map(([source]) => source)
  return new RegExp(sorted.join('|'), 'g')
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[$()*+.?[\\\]^{|}/-]/g, String.raw`\$&`)
}
