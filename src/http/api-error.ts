import type {InboundResponse} from './transport.js'

import {ApiError, ExitCode, type NextStep} from '../errors.js'
import {parseErrorBody} from './error-body.js'
import {parseJson} from './json.js'
import {maskPatientText, scrubSecrets} from './redact.js'
import {findServiceModule, requestIdFrom} from './services.js'

/**
 * An HTTP error answer (4xx, 5xx) as an ApiError: status, the server's message and the request id,
 * never a secret. With `patientData` (a health client that masks patient data), the message and
 * field descriptions show no email address and none of the patient data the request sent.
 */
export function apiErrorFrom(
  res: InboundResponse,
  context: {authStep?: NextStep; operationId: string; patientData?: ReadonlySet<string>; secrets?: string[]; service: string},
): ApiError {
  const secrets = context.secrets ?? []
  const shown = (text: string) => (context.patientData ? maskPatientText(scrubSecrets(text, secrets), context.patientData) : scrubSecrets(text, secrets))
  // Scrubbed before it is parsed: the message of a text body is its first line cut at 200
  // characters, and a cut through a credential would leave a piece no scrubber recognises.
  const clean = scrubSecrets(res.text, secrets)
  const module = findServiceModule(context.service)
  const parsed = parseErrorBody(parseJson(clean), clean, module?.errorFields)
  const requestId = requestIdFrom(res.headers, parseJson(res.text))
  const retryAfter = [res.headers['retry-after']].flat()[0]
  return new ApiError({
    status: res.status,
    code: parsed.code === undefined ? undefined : scrubSecrets(parsed.code),
    message: shown(parsed.message ?? `HTTP ${res.status}`),
    fieldErrors: parsed.fieldErrors.map((f) => ({field: scrubSecrets(f.field), description: shown(f.description)})),
    requestId: scrubSecrets(requestId ?? parsed.reference ?? '') || undefined,
    service: context.service,
    operationId: context.operationId,
    exitCode: parsed.code && module?.refusalCodes?.has(parsed.code) ? ExitCode.Refused : undefined,
    authStep: context.authStep ?? module?.authStep?.(res.status),
    ...(retryAfter ? {retryAfter: retryAfter.slice(0, 40)} : {}),
  })
}
