/**
 * The health service as the HTTP layer reaches it: the `connect.sid` session cookie, the
 * `x-ph-api-version` header on every call (and `accept-language` when asked), the request id in
 * `x-ph-api-request-id`, field problems under `elements: [{id, field}]`, and its patient data
 * masked in traces. Registered by src/services/registry.ts.
 */
import type {ServiceModule} from '../../http/services.js'

import {CredentialsError} from '../../errors.js'
import {PATIENT_DATA_FIELDS} from './patient-data.js'

export const HEALTH_API_VERSION = '3.14.0'
/** The session a dry run's curl line refers to instead of printing it. */
export const HEALTH_SESSION_ENV = 'OPSCTL_HEALTH_SESSION'

export const healthClientModule: ServiceModule = {
  name: 'health',
  auth(target, kind) {
    const headers: Record<string, string> = {'x-ph-api-version': target.apiVersion ?? HEALTH_API_VERSION}
    if (target.language) headers['accept-language'] = target.language
    if (kind !== 'session') return {headers, secrets: []}
    if (!target.session) {
      throw new CredentialsError(`No health session in profile ${target.profileName ?? ''}`.trim(), [`Or set ${HEALTH_SESSION_ENV}`]).withNext({
        step: 'sign-in',
      })
    }

    headers.cookie = `connect.sid=${target.session}`
    return {headers, secrets: [target.session]}
  },
  curlAuth: (target, kind) => [
    `-H 'x-ph-api-version: ${target.apiVersion ?? HEALTH_API_VERSION}'`,
    ...(target.language ? [`-H 'accept-language: ${target.language}'`] : []),
    ...(kind === 'session' ? [`-H "cookie: connect.sid=$${HEALTH_SESSION_ENV}"`] : []),
  ],
  secretEnv: [HEALTH_SESSION_ENV],
  requestIdHeader: 'x-ph-api-request-id',
  errorFields: (body) => ({
    fieldErrors: Array.isArray(body.elements)
      ? (body.elements as Record<string, unknown>[]).map((e) => ({field: String(e?.field ?? '?'), description: String(e?.id ?? e?.message ?? 'invalid')}))
      : undefined,
  }),
  // 401: a new session; 403: another user's data, or a caregiver's write: that user's own session.
  authStep: (status) => (status === 403 ? {step: 'sign-in-as-owner'} : {again: true, step: 'sign-in'}),
  patientData: PATIENT_DATA_FIELDS,
  operations: async () => (await import('./operations.js')).healthService.list,
}
