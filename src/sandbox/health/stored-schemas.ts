/**
 * What the health module's stored records must be for the sandbox to serve them: the service's
 * own answer schemas (src/services/health/operations.ts), tightened where the sandbox's handlers
 * rely on a field (an id and email as strings, times that parse, an IANA zone, a password hash).
 * `sandbox import` checks every record against these before anything is replaced.
 */
import * as z from 'zod'

import {Event, GroupConfig, IsoDateTime, ROLES, TimeZone, User} from '../../services/health/operations.js'

export const StoredUserSchema = User.extend({
  role: z.enum(ROLES),
  givenName: z.string(),
  familyName: z.string(),
  language: z.string(),
  timeZone: TimeZone,
  createdDate: IsoDateTime,
  password: z.looseObject({salt: z.string(), hash: z.string()}),
  plan: z.looseObject({medications: User.shape.plan.unwrap().shape.medications}),
})

export const StoredEventSchema = Event.extend({
  date: IsoDateTime,
  createdDate: IsoDateTime.optional(),
  updatedDate: IsoDateTime.optional(),
})

export const StoredSessionSchema = z.looseObject({userId: z.string(), lastSeen: z.number().finite()})

export const StoredActResultsSchema = z.array(z.looseObject({date: IsoDateTime, score: z.number().finite(), kind: z.enum(['adult', 'child'])}))

export const StoredGroupSchema = GroupConfig.extend({timeZone: TimeZone.optional()})
