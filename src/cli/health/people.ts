/**
 * The users the signed-in user may read: themself and, for a caregiver, the linked patients
 * (`caregiverOf`). `users me` lists them; `users get` and `users inspect` find one by email among them.
 */
import type {ServiceClient} from '../../http/client.js'

import {ExitCode, OpsError} from '../../errors.js'
import {healthOps, type User} from '../../services/health/operations.js'
import {hints} from '../hints.js'

/** A linked patient as `users me` shows them; name and email are null when the record could not be read. */
export interface LinkedPatient {
  name: null | string
  email: null | string
  id: string
}

export const LINKED_PATIENT_COLUMNS = ['name', 'email', 'id']

const nameOf = (u: User) => [u.givenName, u.familyName].filter(Boolean).join(' ')

/** Reads each linked patient's record, at the same time; one that cannot be read stays, without name and email. */
export async function linkedPatients(me: User, client: Pick<ServiceClient, 'call'>): Promise<LinkedPatient[]> {
  return Promise.all(
    (me.caregiverOf ?? []).map(async (id) => {
      try {
        const {data} = await client.call(healthOps.getUserById, {params: {userId: id}})
        return {name: nameOf(data), email: data.email, id}
      } catch (error) {
        if (error instanceof OpsError && error.exitCode !== ExitCode.Unexpected) return {name: null, email: null, id}
        throw error
      }
    }),
  )
}

const sameEmail = (a: null | string | undefined, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase()

/**
 * The id of the user with `email` among those the signed-in user may read, and the signed-in user's
 * id. A miss is exit 4 naming the email as typed (the person's own input) and who was searched.
 */
export async function findByEmail(email: string, client: Pick<ServiceClient, 'call'>): Promise<{signedInUser: string; userId: string}> {
  const {data: me} = await client.call(healthOps.getUser)
  if (sameEmail(me.email, email)) return {signedInUser: me.id, userId: me.id}
  const patients = await linkedPatients(me, client)
  const found = patients.find((p) => sameEmail(p.email, email))
  if (found) return {signedInUser: me.id, userId: found.id}
  const searched =
    patients.length === 0
      ? 'yourself only (no linked patients)'
      : `yourself and your ${patients.length} linked patient(s): ${patients.map((p) => p.email ?? p.id).join(', ')}`
  throw new OpsError(`No user with email ${email} among the users ${me.email} may read: searched ${searched}`, ExitCode.NotFound, [hints.linkedPatients])
}
