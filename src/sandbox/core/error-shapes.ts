import type {FieldProblem, SandboxModule} from '../types.js'

import {SandboxError} from './sandbox-error.js'

/** The prefix of the emulator's own controls: no service's. */
const CONTROL_PREFIX = '/__sandbox'

/** The names of statuses: the codes of refusals the core makes for a service whose module names none (and the control plane's). */
const STATUS_NAMES = new Map<number, string>([
  [400, 'BAD_REQUEST'],
  [401, 'UNAUTHORIZED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [409, 'CONFLICT'],
  [413, 'PAYLOAD_TOO_LARGE'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'],
  [421, 'MISDIRECTED_REQUEST'],
  [429, 'TOO_MANY_REQUESTS'],
  [503, 'SERVICE_UNAVAILABLE'],
])

function statusName(status: number): string {
  return STATUS_NAMES.get(status) ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST')
}

/** The core's own shape (control routes, and services whose module has none): `{code, message, fields?}`. */
function plainBody(error: SandboxError): unknown {
  return {code: error.code, message: error.message, ...(error.fields.length > 0 ? {fields: error.fields} : {})}
}

/**
 * Errors in each service's own shape (its module's `errors`), wherever the core answers one: a
 * refused route, a body too large, a fault, a failed save. The service of a URL is the module
 * with the longest prefix it starts with; `/__sandbox/...` is the control plane's.
 */
export class ErrorShapes {
  constructor(private readonly modules: readonly SandboxModule[]) {}

  /** The module serving a URL on the shared origin; none for the control plane. */
  moduleOf(url: string): SandboxModule | undefined {
    if (url === CONTROL_PREFIX || url.startsWith(`${CONTROL_PREFIX}/`) || url.startsWith(`${CONTROL_PREFIX}?`)) return undefined
    let best: SandboxModule | undefined
    for (const m of this.modules) {
      const under = m.prefix === '' || url === m.prefix || url.startsWith(`${m.prefix}/`) || url.startsWith(`${m.prefix}?`)
      if (under && (!best || m.prefix.length > best.prefix.length)) best = m
    }

    return best
  }

  /** The code of a refusal the core makes itself, in the service's words. */
  code(module: SandboxModule | undefined, status: number): string {
    return module?.errors?.codeForStatus?.(status) ?? statusName(status)
  }

  /** The body of an error answer. */
  body(module: SandboxModule | undefined, error: SandboxError, requestId: string): unknown {
    return module?.errors ? module.errors.body(error, requestId) : plainBody(error)
  }

  /** The body of a refusal the core makes to a URL: the service's code for the status, in its shape. */
  refusal(url: string, status: number, message: string, requestId: string): unknown {
    const module = this.moduleOf(url)
    return this.body(module, new SandboxError(status, this.code(module, status), message), requestId)
  }
}

/** zod issues -> the fields a 400 names. */
export function fieldsOf(issues: readonly {path: readonly PropertyKey[]; message: string}[], root: string): FieldProblem[] {
  return issues.map((i) => ({field: i.path.length > 0 ? i.path.map(String).join('.') : root, description: i.message}))
}
