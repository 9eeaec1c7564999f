/** Masks secrets for display: traces, dry runs, profile listings, errors. */
import type {OutboundRequest} from './transport.js'

import {registerSecret, scrub} from './secrets/registry.js'

/** Headers that carry a credential (sent, or set by an answer) or a challenge for one: masked wherever headers are shown (`-i`, traces, dry runs). */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'cookie',
  'proxy-authenticate',
  'proxy-authorization',
  'set-cookie',
  'www-authenticate',
  'x-api-key',
])
const SECRET_KEY = /pass(word)?|secret|token|session|api.?key|publickey|authorization|cookie|^card$|cardnumber|^pan$|cvc|cvv|^key$/i
/** Names that match the pattern above but carry no credential: paging cursors are what a trace is read for. */
const NOT_SECRET = /^paging_?token$/i
export const isSecretName = (name: string) => SECRET_KEY.test(name) && !NOT_SECRET.test(name)
/** A header whose value is masked: one of SECRET_HEADERS, or one named like a secret (`x-auth-token`, `x-session-id`). */
export const isSecretHeader = (name: string) => SECRET_HEADERS.has(name.toLowerCase()) || isSecretName(name)

/**
 * How deep the walks below go. They recurse, so a value nested thousands deep (a hostile file or
 * answer) would overflow the stack: past this depth a value is shown as TOO_DEEP, never as it is.
 */
const MAX_WALK_DEPTH = 64
const TOO_DEEP = '[NESTED TOO DEEP]'

/** True when a JSON value holds a non-empty value under a secret-looking name, at any depth (a password, a card number); past MAX_WALK_DEPTH, assumed to. */
export function hasSecretField(value: unknown, depth = 0): boolean {
  if (depth > MAX_WALK_DEPTH) return true
  if (Array.isArray(value)) return value.some((v) => hasSecretField(v, depth + 1))
  if (!value || typeof value !== 'object') return false
  return Object.entries(value).some(([k, v]) =>
    isSecretName(k) && (typeof v === 'string' || typeof v === 'number') ? String(v) !== '' : hasSecretField(v, depth + 1),
  )
}

/** `sk-X8qolYjy...` -> `sk-X…Sl`: enough to tell keys apart, never enough to use one. */
export function maskSecret(value: string | undefined | null): string {
  if (!value) return ''
  if (value.length <= 8) return '****'
  return `${value.slice(0, 4)}…${value.slice(-3)}`
}

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const text = Array.isArray(value) ? value.join(', ') : String(value)
    // any other header is scrubbed of every secret the registry knows (a Location that echoes a token)
    out[name] = isSecretHeader(name) ? redactHeaderValue(name, text) : scrub(text)
  }

  return out
}

function redactHeaderValue(name: string, value: string): string {
  // a credential or a challenge keeps its scheme: `Bearer [REDACTED]`
  if (/authori[sz]ation|authenticate/i.test(name)) return /^\w+\s/.test(value) ? value.replace(/^(\w+)\s+.*$/s, '$1 [REDACTED]') : '[REDACTED]'
  if (!/cookie/i.test(name)) return '[REDACTED]'
  // cookie / set-cookie: keep names and attributes, hide values
  return value.replaceAll(/([\w.-]+)=([^;,\s]*)/g, (_m, k: string, v: string) =>
    /^(path|domain|expires|max-age|samesite)$/i.test(k) ? `${k}=${v}` : `${k}=[REDACTED]`,
  )
}

/** Deep copy of a JSON value with secret-looking fields replaced. */
export function redactBody(value: unknown, depth = 0): unknown {
  if (depth > MAX_WALK_DEPTH) return TOO_DEEP
  if (Array.isArray(value)) return value.map((v) => redactBody(v, depth + 1))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] = isSecretName(k) && (typeof v === 'string' || typeof v === 'number') ? '[REDACTED]' : redactBody(v, depth + 1)
    }

    return out
  }

  return value
}

/**
 * Field names (lower case) whose values a trace masks: patient data, given by the caller (the
 * health service's list lives next to its operations, src/services/health/patient-data.ts).
 */
export type MaskedFields = ReadonlySet<string>

export function maskedFields(names: readonly string[]): MaskedFields {
  return new Set(names.map((n) => n.toLowerCase()))
}

/** `Maria Santos` -> `***** ******`: letters and digits hidden, length and separators kept, so the shape still reads. */
export function maskText(text: string): string {
  return text.replaceAll(/[\p{L}\p{N}]/gu, '*')
}

function maskAll(value: unknown, depth: number): unknown {
  if (depth > MAX_WALK_DEPTH) return TOO_DEEP
  if (typeof value === 'string') return maskText(value)
  if (typeof value === 'number') return maskText(String(value))
  if (Array.isArray(value)) return value.map((v) => maskAll(v, depth + 1))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskAll(v, depth + 1)]))
  return value
}

/** Deep copy of a JSON value with the values under the given field names masked (at any depth). */
export function maskFields(value: unknown, fields: MaskedFields | undefined, depth = 0): unknown {
  if (!fields || fields.size === 0) return value
  if (depth > MAX_WALK_DEPTH) return TOO_DEEP
  if (Array.isArray(value)) return value.map((v) => maskFields(v, fields, depth + 1))
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, fields.has(k.toLowerCase()) ? maskAll(v, depth + 1) : maskFields(v, fields, depth + 1)]),
    )
  }

  return value
}

/** Shorter values (an initial) are too common to hide inside a server's sentence. */
const MIN_PATIENT_VALUE = 2
/** An email address anywhere in free text. */
const EMAIL = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu

/**
 * The patient data a request carries (the values under `fields`, at any depth of its body or
 * query): what the client knows it sent, to find again in what the server says back.
 */
export function patientValues(value: unknown, fields: MaskedFields | undefined, into: Set<string> = new Set()): Set<string> {
  if (!fields || fields.size === 0) return into
  if (Array.isArray(value)) for (const v of value) patientValues(v, fields, into)
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (fields.has(k.toLowerCase())) collectAll(v, into)
      else patientValues(v, fields, into)
    }
  }

  return into
}

function collectAll(value: unknown, into: Set<string>): void {
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value).trim()
    if (text.length >= MIN_PATIENT_VALUE) into.add(text)
  } else if (Array.isArray(value)) for (const v of value) collectAll(v, into)
  else if (value && typeof value === 'object') for (const v of Object.values(value)) collectAll(v, into)
}

/**
 * Free text from a server (an error message: "An account with email ana@example.com already
 * exists") with the patient data masked as a trace masks fields: every email address, and each
 * of `known` (what the request sent) where it stands as a word of its own, in any case.
 */
export function maskPatientText(text: string, known: ReadonlySet<string> = new Set()): string {
  let out = text.replaceAll(EMAIL, (email) => maskText(email))
  if (known.size === 0 || out === '') return out
  const words = [...known].sort((a, b) => b.length - a.length).map((v) => escapeRegExp(v))
  const pattern = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:${words.join('|')})(?![\p{L}\p{N}])`, 'giu')
  out = out.replace(pattern, (found) => maskText(found))
  return out
}

/** Deep copy of a JSON value with `maskPatientText` applied to every string. */
export function maskPatientStrings(value: unknown, known?: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return maskPatientText(value, known)
  if (Array.isArray(value)) return value.map((v) => maskPatientStrings(v, known))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskPatientStrings(v, known)]))
  return value
}

/** The patient data a request carries, in its body and its query. */
export function sentPatientData(req: Pick<OutboundRequest, 'body' | 'url'>, masked: MaskedFields): Set<string> {
  const body = req.body && !('raw' in req.body) ? ('json' in req.body ? req.body.json : req.body.form) : undefined
  const known = patientValues(body, masked)
  for (const [key, value] of req.url.searchParams) if (masked.has(key.toLowerCase())) patientValues({[key]: value}, masked, known)
  return known
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[$()*+.?[\\\]^{|}/]/g, String.raw`\$&`)
}

/**
 * A URL for a trace: the values of secret-looking query parameters and any user:password masked,
 * and the values of `masked` fields (patient data used as filters) hidden, keeping their length.
 */
export function redactUrl(url: URL, masked?: MaskedFields): string {
  const copy = new URL(url.href)
  if (copy.password) copy.password = 'REDACTED'
  if (copy.username) copy.username = 'REDACTED'
  for (const key of new Set(copy.searchParams.keys())) {
    if (isSecretName(key)) {
      const count = copy.searchParams.getAll(key).length
      copy.searchParams.delete(key)
      for (let i = 0; i < count; i++) copy.searchParams.append(key, '[REDACTED]')
    } else if (masked?.has(key.toLowerCase())) {
      const values = copy.searchParams.getAll(key)
      copy.searchParams.delete(key)
      for (const v of values) copy.searchParams.append(key, maskText(v))
    }
  }

  return copy.href
}

/**
 * Removes the given secrets, and every secret the process has registered, in every encoded form,
 * from free text (error messages from servers, for one). The given ones are registered too: what
 * must not appear here must not appear anywhere.
 */
export function scrubSecrets(text: string, secrets: (string | undefined)[] = []): string {
  for (const s of secrets) registerSecret(s)
  return scrub(text)
}
