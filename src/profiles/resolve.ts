import type {ServiceTarget} from '../http/services.js'
import type {Profile} from './schema.js'

import {UsageError} from '../errors.js'
import {ProfileStore} from './store.js'

/**
 * Environment overrides for CI: applied over the values of the profile chosen without naming one
 * (OPSCTL_PROFILE or the active profile). A profile named on the command line is used as stored.
 */
export const ENV = {
  profile: 'OPSCTL_PROFILE',
  healthUrl: 'OPSCTL_HEALTH_URL',
  healthSession: 'OPSCTL_HEALTH_SESSION',
  checkoutUrl: 'OPSCTL_CHECKOUT_URL',
  publicKey: 'OPSCTL_CHECKOUT_PUBLIC_KEY',
  secretKey: 'OPSCTL_CHECKOUT_SECRET_KEY',
} as const

export interface ResolvedProfile {
  name: string
  profile: Profile
  /** names of the settings that came from the environment */
  fromEnv: string[]
  store: ProfileStore
}

/**
 * `named`: the profile named on the command line (`--profile`, `-p`, `sandbox diff --against`,
 * `profile show NAME`), never one oclif filled in from OPSCTL_PROFILE. A named profile is used as
 * stored, as the AWS CLI treats an explicit `--profile`: the OPSCTL_* values of a CI job's
 * environment must not send a request meant for that profile elsewhere (nor make a production
 * profile's request go to a sandbox, or the reverse). Without one: OPSCTL_PROFILE, else the active
 * profile, and the OPSCTL_* values override its settings.
 * An empty OPSCTL_* variable counts as unset; an empty profile name given explicitly is an error, never the active profile.
 */
export async function resolveProfile(
  from: ProfileStore | string,
  named: string | undefined,
  env = process.env,
): Promise<ResolvedProfile> {
  if (named === '') throw new UsageError('The profile name must not be empty', ['See the profiles: opsctl profile list'])
  const store = typeof from === 'string' ? await ProfileStore.open(from) : from
  const name = named ?? (env[ENV.profile] || store.activeName)
  if (name && !store.get(name)) throw await unknownProfileError(name, store.names(), named === undefined && Boolean(env[ENV.profile]))
  const profile = structuredClone(store.require(name))
  const fromEnv: string[] = []
  if (named !== undefined) return {name, profile, fromEnv, store}
  const pick = (key: keyof typeof ENV, apply: (v: string) => void) => {
    const value = env[ENV[key]]
    if (value) {
      apply(value)
      fromEnv.push(ENV[key])
    }
  }

  pick('healthUrl', (v) => (profile.health.baseUrl = v))
  pick('healthSession', (v) => (profile.health.session = v))
  pick('checkoutUrl', (v) => (profile.checkout.baseUrl = v))
  pick('publicKey', (v) => (profile.checkout.publicKey = v))
  pick('secretKey', (v) => (profile.checkout.secretKey = v))
  return {name, profile, fromEnv, store}
}

export function healthTarget(r: Pick<ResolvedProfile, 'name' | 'profile'>, language?: string): ServiceTarget {
  return targetOf(r, 'health', language)
}

export function checkoutTarget(r: Pick<ResolvedProfile, 'name' | 'profile'>): ServiceTarget {
  return targetOf(r, 'checkout')
}

/** What a profile's section of a service may hold for its target (each service's module reads the credentials its rows need). */
const TARGET_FIELDS = ['baseUrl', 'session', 'publicKey', 'secretKey', 'apiVersion', 'language'] as const

/** The credentials a profile holds, to be registered as secrets once it is read. */
export function profileSecrets(profile: Profile): (string | undefined)[] {
  return [profile.health.session, profile.checkout.publicKey, profile.checkout.secretKey]
}

/** The target of a service by its name: the profile's section of that service (the profiles file has one per service). */
export function targetOf(r: Pick<ResolvedProfile, 'name' | 'profile'>, service: string, language?: string): ServiceTarget {
  const section = service !== 'env' && Object.hasOwn(r.profile, service) ? (r.profile as unknown as Record<string, Record<string, unknown>>)[service] : undefined
  if (!section || typeof section !== 'object') throw new Error(`Profiles have no section for the service "${service}"`)
  const target: ServiceTarget = {service, profileName: r.name, baseUrl: ''}
  for (const field of TARGET_FIELDS) if (typeof section[field] === 'string') target[field] = section[field]
  if (language) target.language = language
  return target
}

/**
 * A profile name that names none: the nearest existing name, and where the name came from when it
 * was not typed (a forgotten OPSCTL_PROFILE in a shell or CI job).
 */
async function unknownProfileError(name: string, names: string[], fromEnv: boolean): Promise<UsageError> {
  // Loaded only here: its string-distance package builds an Intl.Collator as it loads (~10 ms of every start).
  const {nearestName} = await import('../suggest.js')
  const guess = nearestName([name], names.map((n) => ({name: n, takesArgs: false})))
  const source = fromEnv ? ` (from ${ENV.profile})` : ''
  const message = `No profile named "${name}"${source}${guess ? `; did you mean "${guess}"?` : ''}`
  const suggestions = fromEnv ? [`Fix or unset ${ENV.profile}, or choose one with --profile <name>`, 'See the profiles: opsctl profile list'] : ['See the profiles: opsctl profile list']
  if (!guess) suggestions.push(`Create it: opsctl profile add ${name}`)
  return new UsageError(message, suggestions)
}
