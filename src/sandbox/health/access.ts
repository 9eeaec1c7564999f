/**
 * Who may read and change a health user's data: the emulator's rule, since the spec shows none
 * (docs/health-support.md).
 *
 * - Users reach their own data, to read and to change.
 * - A caregiver linked to a patient (the patient's id in `caregiverOf` on the caregiver's record)
 *   may read the patient's data: the user, plan, events and metrics. Changes stay the patient's own.
 * - Anyone else's data is 403; an id no user has is 404.
 */
import type {SandboxContext} from '../types.js'
import type {HealthStore, StoredUser} from './state.js'

import {SandboxError} from '../types.js'

export type Access = 'read' | 'write'

/** The patients a caregiver's record links to (an absent or malformed field links none). */
export function linkedPatients(user: StoredUser): string[] {
  const ids = user.caregiverOf
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : []
}

export function mayAccess(caller: StoredUser, target: StoredUser, access: Access): boolean {
  if (caller.id === target.id) return true
  return access === 'read' && linkedPatients(caller).includes(target.id)
}

/** The user `targetId` names, if `callerId` may reach them that way: 404 when there is no such user, 403 when not allowed. */
export async function accessibleUser(ctx: SandboxContext, callerId: string, targetId: string, access: Access): Promise<StoredUser> {
  const {users} = ctx.state.health as HealthStore
  const target = await users.get(targetId)
  if (!target) throw new SandboxError(404, 'NOT_FOUND', `User ${targetId} not found`, [{field: 'userId', description: 'not found'}])
  const caller = callerId === targetId ? target : await users.get(callerId)
  if (caller && mayAccess(caller, target, access)) return target
  if (caller && access === 'write' && mayAccess(caller, target, 'read')) {
    throw new SandboxError(403, 'FORBIDDEN', "A linked caregiver may read this user's data but not change it")
  }

  throw new SandboxError(403, 'FORBIDDEN', "You may not access another user's data")
}

/** Reading operations are GETs; everything else changes data. */
export function accessFor(method: string): Access {
  return method === 'GET' ? 'read' : 'write'
}
