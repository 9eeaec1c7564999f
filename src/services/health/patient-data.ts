/**
 * Patient data: the fields of health requests and answers that say who a patient is or how they
 * are. verbose traces mask their values (src/http/redact.ts reads this list through the
 * client's options); `OPSCTL_TRACE_PATIENT_DATA=1` shows them. The list is of field names, at any
 * depth (bodies and query parameters), matched without regard to case.
 *
 * Not in it, on purpose: `name` and `description`. In this API they carry the service's own words
 * (metric names in a query, group and medication names, the description of a refused field in an
 * error body), which is what a trace is read for; a patient's names are `givenName`/`familyName`.
 */
export {patientDataShown, TRACE_PATIENT_DATA_ENV} from '../patient-data-env.js'

export const PATIENT_DATA_FIELDS: readonly string[] = [
  // who
  'givenName',
  'familyName',
  'firstName',
  'lastName',
  'fullName',
  'email',
  'phone',
  'phoneNumber',
  'mobile',
  'birthDate',
  'dateOfBirth',
  'dob',
  'address',
  // free text
  'notes',
  'note',
  'comment',
  'comments',
  'freeText',
  // how they are
  'symptoms',
  'triggers',
  'disease',
]
