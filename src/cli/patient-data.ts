/**
 * Patient data in `--verbose` traces: masked by default (the fields a service's module lists,
 * `ServiceModule.patientData`), shown when OPSCTL_TRACE_PATIENT_DATA=1, which is then said on
 * stderr, once per command.
 */
import {type MaskedFields, maskedFields} from '../http/redact.js'
import {findServiceModule} from '../http/services.js'
import {patientDataShown, TRACE_PATIENT_DATA_ENV} from '../services/patient-data-env.js'

export {patientDataShown, TRACE_PATIENT_DATA_ENV} from '../services/patient-data-env.js'

const masks = new Map<string, MaskedFields>()

/** The fields a service's traces mask; `undefined` (nothing masked) when it has no patient data or the user asked to see them. */
export function patientTraceMask(service: string): MaskedFields | undefined {
  const fields = findServiceModule(service)?.patientData
  if (!fields || patientDataShown()) return undefined
  let mask = masks.get(service)
  if (!mask) masks.set(service, (mask = maskedFields(fields)))
  return mask
}

export const PATIENT_DATA_NOTICE = `Note: ${TRACE_PATIENT_DATA_ENV}=1: this trace shows patient data (names, emails, phones, dates of birth, free text, symptoms, triggers) unmasked; do not paste it into a ticket`
