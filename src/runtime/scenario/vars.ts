import {randomUUID} from 'node:crypto'

import {UsageError} from '../../errors.js'

const REF = /\$\{([^}]+)\}/g

/**
 * Variables every scenario has: `run.id`, one short id per run (set by the runner), so that what a
 * run creates (an email, a reference) differs from the last run's; `uuid`, a new UUID at each use.
 */
export const BUILT_IN_VARIABLES: ReadonlySet<string> = new Set(['run.id', 'uuid'])

/** A new `${run.id}`: 8 hex digits, unique enough to tell runs against one sandbox apart. */
export function newRunId(): string {
  return randomUUID().slice(0, 8)
}

/** Names referred to by `${name}` / `${env:NAME|default}` in a text. */
export function variableRefs(text: string): string[] {
  return [...text.matchAll(REF)].map((m) => m[1].trim())
}

/**
 * Environment variables a scenario may not read: whatever `${env:NAME}` yields lands in a step's
 * command line, which is sent (a webhook URL, a note) and shown redacted, so nobody would notice a
 * live key leaving. A step gets credentials from its profile or the environment opsctl reads
 * itself, never from argv.
 */
export function isCredentialEnvName(name: string): boolean {
  return /^OPSCTL_.*(?:KEY|SESSION)/i.test(name) || /SECRET|PASSWORD|TOKEN/i.test(name)
}

/** The `NAME` of an `${env:NAME|default}` reference, or undefined for other references. */
export function envName(ref: string): string | undefined {
  return ref.startsWith('env:') ? ref.slice(4).split('|', 1)[0].trim() : undefined
}

export function credentialRefused(name: string): string {
  return `\${env:${name}} reads a credential; a step gets credentials from its profile (or the OPSCTL_* variables opsctl reads itself), never from its command line`
}

/** Replaces `${name}` from vars, `${uuid}` with a new UUID, and `${env:NAME|default}` from the environment. */
export function substitute(text: string, vars: Record<string, string>, env: NodeJS.ProcessEnv = process.env): string {
  return text.replaceAll(REF, (_m, inner: string) => {
    const ref = inner.trim()
    if (ref.startsWith('env:')) {
      const [name, fallback] = ref.slice(4).split('|', 2)
      if (isCredentialEnvName(name.trim())) throw new UsageError(credentialRefused(name.trim()))
      const value = env[name.trim()] ?? fallback
      if (value === undefined) throw new UsageError(`Environment variable ${name.trim()} is not set and \${${ref}} has no default`)
      // The same credential under an innocent name (CHECKOUT_SK=$OPSCTL_CHECKOUT_SECRET_KEY) is still a credential.
      if (value.length >= 8 && Object.entries(env).some(([other, secret]) => secret === value && isCredentialEnvName(other))) {
        throw new UsageError(`\${env:${name.trim()}} holds the value of a credential; ${credentialRefused(name.trim()).split('; ')[1]}`)
      }

      return value
    }

    if (ref === 'uuid') return randomUUID()
    if (!Object.hasOwn(vars, ref)) throw new UsageError(`Variable \${${ref}} is not defined`)
    return vars[ref]
  })
}
