import type {Service} from '../../http/operation.js'
import type {FieldProblem} from '../types.js'

/** Which service a URL belongs to on the shared sandbox origin. */
export function serviceOfUrl(url: string): 'control' | Service {
  if (url.startsWith('/checkout')) return 'checkout'
  if (url.startsWith('/__sandbox')) return 'control'
  return 'health'
}

/**
 * Errors in each service's own shape:
 * - health: `{code, message, elements?: [{id, field}]}` (id: what is wrong with the field)
 * - checkout: `{code, message, parameters?: [{field, description}]}`, plus `reference` (the request id)
 */
export function errorBody(service: 'control' | Service, code: string, message: string, fields: FieldProblem[], requestId: string): unknown {
  if (service === 'checkout') {
    return {code, message, ...(fields.length > 0 ? {parameters: fields} : {}), reference: requestId}
  }

  return {code, message, ...(fields.length > 0 ? {elements: fields.map((f) => ({id: f.description, field: f.field}))} : {})}
}

/** Default codes when something other than a handler refuses a request. */
export function codeForStatus(service: 'control' | Service, status: number): string {
  if (service === 'checkout') {
    if (status === 404) return 'PY0404'
    if (status === 413) return 'PY0413'
    if (status === 415) return 'PY0415'
    if (status === 503) return 'PY0503'
    return status >= 500 ? 'PY0500' : 'PY0001'
  }

  const names: Record<number, string> = {
    400: 'BAD_REQUEST',
    401: 'UNAUTHORIZED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    421: 'MISDIRECTED_REQUEST',
    503: 'SERVICE_UNAVAILABLE',
  }
  return names[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST')
}

/** zod issues -> the fields a 400 names. */
export function fieldsOf(issues: readonly {path: readonly PropertyKey[]; message: string}[], root: string): FieldProblem[] {
  return issues.map((i) => ({field: i.path.length > 0 ? i.path.map(String).join('.') : root, description: i.message}))
}
