/**
 * The process's one list of secrets: API keys, sessions, passwords, card numbers, CVCs. Each is
 * registered when it becomes known (argv, environment, profile, stdin, request bodies, sign-in
 * answers) and `scrub()` removes it, in every form it can take on the way out, from any text:
 * the stream guard (streams.ts) runs everything written to stdout and stderr through it, and so
 * do the audit log and report files.
 *
 * A server that echoes a request shows a key as it was sent, not as it was typed: inside a Basic
 * `Authorization` header (`base64(key + ":")`), URL-encoded in a cookie or a form, escaped once or
 * twice inside JSON. Those forms are listed here once, for every secret.
 */
import {inspect} from 'node:util'

export type SecretKind = 'card' | 'credential' | 'cvc'

export const REDACTED = '[REDACTED]'

/** Shorter values are too common to scrub from free text ("123" is a CVC and part of an amount): only next to their name. */
const MIN_FREE_TEXT = 4
/** Names a short secret is scrubbed after, e.g. `cvc=123`, `"cvc":"123"`, `\"password\": \"abc\"`. */
const SHORT_SECRET_CONTEXT = String.raw`(?<=(?:cvc|cvv|csc|pin|pass(?:word|wd)?|secret|key|session|connect\.sid)[\w-]*[\\"']*\s*[:=]\s*[\\"']*)`
/** What may separate the digits of a card number as typed or sent: spaces, dashes, their URL forms. */
const CARD_SEPARATOR = String.raw`(?:[\s-]|%20|\+)?`

const literals = new Set<string>()
const patterns = new Set<string>()
let compiled: RegExp | undefined

export function registerSecret(value: string | number | undefined | null, kind: SecretKind = 'credential'): void {
  if (value === undefined || value === null) return
  const text = String(value)
  if (text.trim() === '') return
  const before = literals.size + patterns.size
  const digits = text.replaceAll(/[\s-]/g, '')
  if (kind === 'card' && /^\d{13,19}$/.test(digits)) {
    patterns.add([...digits].join(CARD_SEPARATOR))
  } else if (kind === 'cvc' || text.length < MIN_FREE_TEXT) {
    patterns.add(SHORT_SECRET_CONTEXT + escapeRegExp(text) + String.raw`(?![\w])`)
  } else {
    for (const form of encodedForms(text)) if (form.length >= MIN_FREE_TEXT) literals.add(form)
  }

  if (literals.size + patterns.size !== before) compiled = undefined
}

export function hasSecrets(): boolean {
  return literals.size > 0 || patterns.size > 0
}

/** The text with every registered secret, in every form, replaced by [REDACTED]. */
export function scrub(text: string): string {
  if (!hasSecrets() || text === '') return text
  compiled ??= compile()
  return text.replace(compiled, REDACTED)
}

/** For tests that run several commands in one process, as separate users. */
export function forgetSecrets(): void {
  literals.clear()
  patterns.clear()
  compiled = undefined
}

/** Every form a secret can take in an echo of a request that carried it. */
export function encodedForms(value: string): Set<string> {
  const forms = new Set<string>()
  const add = (form: string) => {
    forms.add(form)
    // Once more through JSON: an echoed JSON body shown inside a JSON error, or a JSON trace of it.
    forms.add(jsonEscaped(form))
    forms.add(jsonEscaped(jsonEscaped(form)))
  }

  add(value)
  // A cookie value is stored URL-encoded (`s%3A...`) and shown decoded by servers that parse it.
  add(uriDecoded(value))
  add(inspect(value).slice(1, -1))
  add(encodeURIComponent(value))
  add(new URLSearchParams({v: value}).toString().slice(2))
  // Basic auth: the key as user name with an empty password, and the key alone.
  for (const plain of [`${value}:`, value]) {
    const base64 = Buffer.from(plain, 'utf8').toString('base64')
    add(base64)
    add(base64.replace(/=+$/, ''))
    add(Buffer.from(plain, 'utf8').toString('base64url'))
    add(encodeURIComponent(base64))
  }

  return forms
}

function uriDecoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1)
}

function compile(): RegExp {
  // Card patterns first (they match the digits with or without separators), then the longest
  // literal first, so that a padded base64 form is removed whole rather than all but its `=`.
  const sorted = [...literals].sort((a, b) => b.length - a.length).map((l) => escapeRegExp(l))
  return new RegExp([...patterns, ...sorted].join('|'), 'g')
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[$()*+.?[\\\]^{|}]/g, String.raw`\$&`)
}
