/**
 * The services as the HTTP layer knows them: a registry of service modules. Each service brings,
 * in its own folder (src/services/<service>/client-module.ts), how a request authenticates, the
 * headers every call carries, how its error answers read, and which of its codes are business-rule
 * refusals; src/services/registry.ts registers each one with one line. Nothing here names a service.
 */
import type {FieldError, NextStep} from '../errors.js'
import type {AuthKind, Operation} from './operation.js'

/** Everything the HTTP layer needs to reach one service as one caller. Built from the resolved profile. */
export interface ServiceTarget {
  /** The registered module's name (src/services/registry.ts). */
  service: string
  baseUrl: string
  profileName?: string
  /** The credential of `auth: 'session'` rows (a session cookie's value). */
  session?: string
  /** The credential of `auth: 'public'` rows. */
  publicKey?: string
  /** The credential of `auth: 'secret'` rows. */
  secretKey?: string
  /** The API version the service's module sends, when the profile pins one. */
  apiVersion?: string
  /** The language asked for (BCP 47), when the service takes one. */
  language?: string
}

/** Environment variables a `--dry-run` curl refers to instead of printing a secret (each service's own are in its module). */
export const SECRET_ENV = {
  sandboxToken: 'OPSCTL_SANDBOX_TOKEN',
} as const

export interface AuthParts {
  headers: Record<string, string>
  /** The same headers as curl arguments, secrets as `$ENV` references. */
  curlArgs: string[]
  secrets: string[]
  /** The base URL the credentials belong to: they are sent only to it and below it (prepare.ts). */
  scope?: string
}

/** What a service's module reads from its JSON error answers, beyond the `code` and `message` every service sends. */
export interface ErrorFields {
  /** The error's code, when the body keeps it somewhere other than a top-level `code`. */
  code?: string
  message?: string
  fieldErrors?: FieldError[]
  /** The request id, when the body carries it. */
  reference?: string
}

/** One service as the HTTP layer needs it. Registered once (`registerServiceModule`); read by name (`serviceModule`). */
export interface ServiceModule {
  /** The service's name: `defineService({name})` of its table. */
  name: string
  /** The headers of a request with this kind of credential (and the headers every call carries); throws CredentialsError when the target lacks the credential. */
  auth(target: ServiceTarget, kind: AuthKind): {headers: Record<string, string>; secrets: string[]}
  /** The same headers as curl arguments, secrets as `$ENV` references: needs no credential, only the kind. */
  curlAuth(target: ServiceTarget, kind: AuthKind): string[]
  /** Environment variables that hold its credentials: registered as secrets as soon as a command starts. */
  secretEnv?: readonly string[]
  /** The header its answers carry the request id in. */
  requestIdHeader?: string
  /** Its error answers' own fields (field problems, a message or request id under another key). */
  errorFields?(body: Record<string, unknown>): ErrorFields
  /** Its error codes that mean "a business rule refused this": exit 5, not 2. */
  refusalCodes?: ReadonlySet<string>
  /** What fixes a 401 or 403 from it; by default, a look at the profile. */
  authStep?(status: number): NextStep
  /** Fields (at any depth, any case) that say who a patient is or how they are: traces mask their values (src/http/redact.ts). */
  patientData?: readonly string[]
  /** Its table's rows (`defineService(...).list`), imported when asked: the table brings zod, which a module's other readers never need. */
  operations(): Promise<readonly Operation[]>
}

// A Map: service names come from tables and profiles, never from a plain object's prototype.
const modules = new Map<string, ServiceModule>()

/** Makes a service known to the HTTP layer: src/services/registry.ts, one line per service (a test's invented service too). */
export function registerServiceModule(module: ServiceModule): void {
  modules.set(module.name, module)
}

/** The registered module of a service, if any (the sandbox's control plane has none). */
export function findServiceModule(name: string): ServiceModule | undefined {
  return modules.get(name)
}

/** The registered module of a service; a target of a service no one registered is a programming error. */
export function serviceModule(name: string): ServiceModule {
  const module = modules.get(name)
  if (!module) throw new Error(`No service module registered for "${name}" (src/services/registry.ts registers them)`)
  return module
}

export function registeredServiceModules(): ServiceModule[] {
  return [...modules.values()]
}

/** Basic auth with the key as user name and an empty password (a scheme of HTTP, not of one service). */
export function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`
}

export function authFor(target: ServiceTarget, auth: AuthKind): AuthParts {
  const module = serviceModule(target.service)
  return {...module.auth(target, auth), curlArgs: module.curlAuth(target, auth), scope: target.baseUrl}
}

/** The auth headers as curl arguments, secrets as `$ENV` references: needs no credential, only the kind. */
export function authCurlArgs(target: ServiceTarget, auth: AuthKind): string[] {
  return serviceModule(target.service).curlAuth(target, auth)
}

/** Where the registered services put the id support needs to find a request: a header, else the body's `reference` or `requestId`. */
export function requestIdFrom(headers: Record<string, string | string[] | undefined>, body: unknown): string | undefined {
  for (const module of modules.values()) {
    const header = module.requestIdHeader && headers[module.requestIdHeader]
    if (typeof header === 'string' && header) return header
  }

  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>
    for (const key of ['reference', 'requestId']) if (typeof b[key] === 'string') return b[key] as string
  }

  return undefined
}
