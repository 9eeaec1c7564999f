/**
 * Where secrets come from, each registered as soon as it is known: the command line (before oclif
 * reads it, so that its DEBUG output of argv is scrubbed too), the environment overrides, request
 * bodies and headers, and the cookies a sign-in answers with.
 */
import {isSecretHeader, isSecretName} from '../redact.js'
import {registeredServiceModules, SECRET_ENV} from '../services.js'
import {registerSecret, type SecretKind} from './registry.js'

/**
 * Flags whose value is a secret, by name. A list rather than the secret-name pattern: `api --key
 * public|secret` chooses a key, it is not one, and "public" must stay printable.
 */
export const SECRET_FLAGS: ReadonlyMap<string, SecretKind> = new Map<string, SecretKind>([
  ['card', 'card'],
  ['cvc', 'cvc'],
  ['password', 'credential'],
  ['public-key', 'credential'],
  ['secret-key', 'credential'],
  ['session', 'credential'],
  ['token', 'credential'],
])
/** Flags whose value may carry secrets inside: a JSON body, `name: value` headers, `k=v` query pairs (`opsctl api`). */
const DATA_FLAGS = new Set(['--data', '-d'])
const HEADER_FLAGS = new Set(['--header', '-H'])
const QUERY_FLAGS = new Set(['--query', '-q'])
/** Flags whose value is a URL with a password in it (`sandbox start --database postgres://user:password@...`). */
const URL_FLAGS = new Set(['--database'])

export function registerArgv(argv: readonly string[]): void {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (token === '--') break
    const eq = token.startsWith('--') ? token.indexOf('=') : -1
    const name = eq === -1 ? token : token.slice(0, eq)
    const value = () => (eq === -1 ? argv[++i] : token.slice(eq + 1))
    const kind = name.startsWith('--') ? SECRET_FLAGS.get(name.slice(2)) : undefined
    if (kind) registerSecret(value(), kind)
    else if (DATA_FLAGS.has(name)) registerJsonText(value())
    else if (HEADER_FLAGS.has(name)) registerHeaderLine(value())
    else if (QUERY_FLAGS.has(name)) registerPair(value())
    else if (URL_FLAGS.has(name)) registerUrlPassword(value())
  }
}

/** opsctl's variables whose name says they hold a secret: bin/run.js registers them before any service module is loaded. */
const SECRET_ENV_NAME = /^OPSCTL_\w*(?:KEY|PASSWORD|SECRET|SESSION|TOKEN)$/

/** The sandbox control token, the credentials each registered service names (a session, API keys), and every OPSCTL_ variable named like a secret. */
export function registerEnv(env: NodeJS.ProcessEnv = process.env): void {
  const named = [...Object.values(SECRET_ENV), ...registeredServiceModules().flatMap((m) => m.secretEnv ?? [])]
  for (const name of named) registerSecret(env[name])
  for (const [name, value] of Object.entries(env)) if (SECRET_ENV_NAME.test(name)) registerSecret(value)
  registerUrlPassword(env.OPSCTL_SANDBOX_DATABASE)
  // PostgreSQL's own variable, which `sandbox start --database` reads (docs: secrets stay off argv)
  registerSecret(env.PGPASSWORD)
}

/** The password of a URL (a database's), as written and decoded. */
function registerUrlPassword(text: string | undefined): void {
  if (!text) return
  try {
    const {password} = new URL(text)
    registerSecret(password)
    registerSecret(decodeURIComponent(password))
  } catch {
    // not a URL: --database refuses it before using it
  }
}

/** Values under secret-looking names (password, cardNumber, cvc, token, ...) at any depth of a JSON value. */
export function registerBodySecrets(value: unknown): void {
  // A stack, not recursion: a body nested thousands deep (`--data @file`) must not overflow the call stack.
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item)
      continue
    }

    if (!next || typeof next !== 'object') continue
    for (const [k, v] of Object.entries(next)) {
      if (isSecretName(k) && (typeof v === 'string' || typeof v === 'number')) registerSecret(v, kindOfName(k))
      else pending.push(v)
    }
  }
}

/** Credentials in headers: Authorization (and its Basic user name), cookie values, Set-Cookie values, and the whole value of another credential header (x-api-key, x-auth-token). A challenge (WWW-Authenticate) is masked where shown, not a secret to look for elsewhere. */
export function registerHeaderSecrets(headers: Record<string, string | string[] | undefined>): void {
  for (const [name, raw] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (!isSecretHeader(lower) || lower.endsWith('authenticate') || raw === undefined) continue
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (lower.endsWith('authorization')) registerAuthorization(value)
      else if (lower.includes('cookie')) registerCookies(value)
      else registerSecret(value)
    }
  }
}

function registerAuthorization(value: string): void {
  registerSecret(value)
  const m = /^(\w+)\s+(\S+)\s*$/.exec(value)
  if (!m) return
  registerSecret(m[2])
  if (m[1].toLowerCase() === 'basic') {
    const decoded = Buffer.from(m[2], 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon > 0) registerSecret(decoded.slice(0, colon))
    if (colon !== -1 && colon < decoded.length - 1) registerSecret(decoded.slice(colon + 1))
  }
}

const COOKIE_ATTRIBUTES = /^(domain|expires|max-age|path|priority|samesite)$/i

function registerCookies(value: string): void {
  for (const m of value.matchAll(/([^\s;,=]+)=([^;,\s]*)/g)) {
    if (!COOKIE_ATTRIBUTES.test(m[1])) registerSecret(m[2])
  }
}

function registerJsonText(text: string | undefined): void {
  if (!text || !/^\s*[[{]/.test(text)) return
  try {
    registerBodySecrets(JSON.parse(text))
  } catch {
    // Not JSON: the command will say so; nothing to register.
  }
}

function registerHeaderLine(line: string | undefined): void {
  const colon = line?.indexOf(':') ?? -1
  if (!line || colon <= 0) return
  registerHeaderSecrets({[line.slice(0, colon).trim()]: line.slice(colon + 1).trim()})
}

function registerPair(pair: string | undefined): void {
  const eq = pair?.indexOf('=') ?? -1
  if (!pair || eq <= 0) return
  const name = pair.slice(0, eq)
  if (isSecretName(name)) registerSecret(pair.slice(eq + 1), kindOfName(name))
}

function kindOfName(name: string): SecretKind {
  if (/cvc|cvv/i.test(name)) return 'cvc'
  if (/card|^pan$/i.test(name)) return 'card'
  return 'credential'
}
