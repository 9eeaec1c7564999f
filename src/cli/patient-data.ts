/**
 * Patient data in `--verbose` traces: masked by default (the fields of
 * src/services/health/patient-data.ts), shown when OPSCTL_TRACE_PATIENT_DATA=1, which is then
 * said on stderr, once per command.
 */
import {type MaskedFields, maskedFields} from '../http/redact.js'
import {PATIENT_DATA_FIELDS, patientDataShown, TRACE_PATIENT_DATA_ENV} from '../services/health/patient-data.js'

export {patientDataShown, TRACE_PATIENT_DATA_ENV} from '../services/health/patient-data.js'

const MASK = maskedFields(PATIENT_DATA_FIELDS)

/** The fields a health trace masks; `undefined` (nothing masked) when the user asked to see them. */
export function patientTraceMask(): MaskedFields | undefined {
  return patientDataShown() ? undefined : MASK
}

export const PATIENT_DATA_NOTICE = `Note: ${TRACE_PATIENT_DATA_ENV}=1: this trace shows patient data (names, emails, phones, dates of birth, free text, symptoms, triggers) unmasked; do not paste it into a ticket`
