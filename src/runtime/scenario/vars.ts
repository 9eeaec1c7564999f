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

/** Replaces `${name}` from vars, `${uuid}` with a new UUID, and `${env:NAME|default}` from the environment. */
export function substitute(text: string, vars: Record<string, string>, env: NodeJS.ProcessEnv = process.env): string {
  return text.replaceAll(REF, (_m, inner: string) => {
    const ref = inner.trim()
    if (ref.startsWith('env:')) {
      const [name, fallback] = ref.slice(4).split('|', 2)
      const value = env[name.trim()] ?? fallback
      if (value === undefined) throw new UsageError(`Environment variable ${name.trim()} is not set and \${${ref}} has no default`)
      return value
    }

    if (ref === 'uuid') return randomUUID()
    if (!Object.hasOwn(vars, ref)) throw new UsageError(`Variable \${${ref}} is not defined`)
    return vars[ref]
  })
}
