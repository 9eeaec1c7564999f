/** Set to `1` to show patient data (the fields a service's module lists) in traces, error lines and reports. */
export const TRACE_PATIENT_DATA_ENV = 'OPSCTL_TRACE_PATIENT_DATA'

export function patientDataShown(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[TRACE_PATIENT_DATA_ENV] === '1'
}
