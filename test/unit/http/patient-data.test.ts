/**
 * Patient data in traces: the health list (src/services/health/patient-data.ts) read by the
 * redaction of src/http, and the audit log, which never holds a body.
 */
import {describe, expect, it} from 'vitest'

import {entryFromAttempt} from '../../../src/audit/log.js'
import {maskedFields, maskFields, maskPatientText, maskText, redactUrl, sentPatientData} from '../../../src/http/redact.js'
import {healthOps, healthService} from '../../../src/services/health/operations.js'
import {PATIENT_DATA_FIELDS} from '../../../src/services/health/patient-data.js'

const MASK = maskedFields(PATIENT_DATA_FIELDS)

describe('maskFields with the patient data fields', () => {
  it('masks names, emails, dates of birth, free text, symptoms and triggers at any depth, keeping shape and length', () => {
    const user = {
      id: 'u-1',
      email: 'patient@demo-clinic.test',
      givenName: 'Maria',
      familyName: 'Santos',
      birthDate: '1990-04-01',
      phone: '+63 917 555 0101',
      role: 'patient',
      plan: {medications: [{medicationId: 'med-salbutamol', notes: 'Take after a cough'}]},
    }
    expect(maskFields(user, MASK)).toEqual({
      id: 'u-1',
      email: '*******@****-******.****',
      givenName: '*****',
      familyName: '******',
      birthDate: '****-**-**',
      phone: '+** *** *** ****',
      role: 'patient',
      plan: {medications: [{medicationId: 'med-salbutamol', notes: '**** ***** * *****'}]},
    })
    const page = {events: [{id: 'e1', symptoms: ['wokenAtNight', 'cough'], triggers: ['coldAir'], doses: 2, address: 'Makati City'}]}
    expect(maskFields(page, MASK)).toEqual({
      events: [{id: 'e1', symptoms: ['************', '*****'], triggers: ['*******'], doses: 2, address: '****** ****'}],
    })
  })

  it('matches names in any case and leaves the value alone without a list', () => {
    expect(maskFields({GivenName: 'Ana', EMAIL: 'a@b.c'}, MASK)).toEqual({GivenName: '***', EMAIL: '*@*.*'})
    expect(maskFields({givenName: 'Ana'}, undefined)).toEqual({givenName: 'Ana'})
    expect(maskText('Ñoño 12')).toBe('**** **')
  })

  it("masks patient data used as query filters, not the service's own words (metric names)", () => {
    const url = new URL('http://127.0.0.1/api/users/u-1/events?symptoms=cough&symptoms=wheeze&name=eventsRescue&pagingToken=t1')
    expect(redactUrl(url, MASK)).toBe('http://127.0.0.1/api/users/u-1/events?name=eventsRescue&pagingToken=t1&symptoms=*****&symptoms=******')
  })
})

describe('patient data repeated in what a server says', () => {
  it('masks every email, and what the request sent where it stands as a word, in any case', () => {
    const sent = sentPatientData(
      {body: {json: {email: 'ana@example.com', givenName: 'Ana', familyName: 'de la Cruz', role: 'patient', notes: 'x'}}, url: new URL('http://h/api?symptoms=cough')},
      MASK,
    )
    expect([...sent].sort()).toEqual(['Ana', 'ana@example.com', 'cough', 'de la Cruz'])
    expect(maskPatientText('An account with email ANA@example.com already exists', sent)).toBe('An account with email ***@*******.*** already exists')
    expect(maskPatientText('ana (De La Cruz) said cough; banana and Coughing stay', sent)).toBe('*** (** ** ****) said *****; banana and Coughing stay')
    expect(maskPatientText('Write to other.person@clinic.example.ph')).toBe('Write to *****.******@******.*******.**')
    expect(maskPatientText('role patient is not allowed', sent)).toBe('role patient is not allowed')
  })
})

describe('the audit log and patient data', () => {
  it('no health operation is audited', () => {
    expect(healthService.list.filter((op) => op.audited).map((op) => op.id)).toEqual([])
  })

  it('an audit line copies named fields, never a body with patient data', () => {
    const entry = entryFromAttempt(
      {
        body: {date: '2026-03-01T08:00:00Z', medicationId: 'med-salbutamol', symptoms: ['cough'], address: 'Makati'},
        data: {id: 'e1', givenName: 'Maria', email: 'patient@demo-clinic.test'},
        operation: healthOps.addEvent,
        outcome: 'applied',
        params: {userId: 'u-1'},
        status: 201,
      },
      'sandbox',
      'sandbox',
    )
    const line = JSON.stringify(entry)
    for (const value of ['cough', 'Makati', 'Maria', 'patient@demo-clinic.test']) expect(line).not.toContain(value)
    expect(JSON.stringify(entryFromAttempt({body: {email: 'a@b.c', givenName: 'Ana'}, operation: healthOps.createUser, outcome: 'failed', params: {}}, 'p', 'sandbox'))).not.toMatch(/a@b\.c|Ana/)
  })
})
