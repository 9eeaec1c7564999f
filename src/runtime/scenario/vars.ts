import {UsageError} from '../../errors.js'

const REF = /\$\{([^}]+)\}/g

/** Names referred to by `${name}` / `${env:NAME|default}` in a text. */
export function variableRefs(text: string): string[] {
  return [...text.matchAll(REF)].map((m) => m[1].trim())
}

/** Replaces `${name}` from vars and `${env:NAME|default}` from the environment. */
export function substitute(text: string, vars: Record<string, string>, env: NodeJS.ProcessEnv = process.env): string {
  return text.replaceAll(REF, (_m, inner: string) => {
    const ref = inner.trim()
    if (ref.startsWith('env:')) {
      const [name, fallback] = ref.slice(4).split('|', 2)
      const value = env[name.trim()] ?? fallback
      if (value === undefined) throw new UsageError(`Environment variable ${name.trim()} is not set and \${${ref}} has no default`)
      return value
    }

    if (!(ref in vars)) throw new UsageError(`Variable \${${ref}} is not defined`)
    return vars[ref]
  })
}
