/**
 * The health service as a table of operations (spec/health-api.md section 4), plus POST /api/sign-in,
 * which the spec names as a source of the session id. The client sends requests from it, the
 * sandbox registers one route per row and validates requests with the same schemas.
 *
 * The spec leaves every body "not shown". The shapes below follow the real service's public data,
 * as issue 4 fixes them; each "not shown" decision is written next to its schema.
 *
 * - Response schemas are tolerant (z.looseObject: unknown fields pass through; optional fields
 *   where the issue marks them "?"), so a newer server never breaks this CLI.
 * - Request schemas keep unknown fields too, but enforce types, required fields, date formats,
 *   symptom/trigger keys and the MAC format, so a bad value is refused before anything is sent.
 *
 * This module imports only zod and defineService: the sandbox and the commands both load it.
 */
import * as z from 'zod'

import {defineService} from '../../http/operation.js'
import {QueryBool, QueryList} from '../query.js'

// ---------------------------------------------------------------------------------------------
// Vocabularies (issue 4)
// ---------------------------------------------------------------------------------------------

export const SYMPTOMS = [
  'wokenAtNight',
  'cough',
  'wheeze',
  'difficultyBreathing',
  'shortnessOfBreath',
  'chestTightness',
  'activityLimitations',
] as const
export type Symptom = (typeof SYMPTOMS)[number]

export const TRIGGERS = [
  'smellsOrScents',
  'respiratoryInfection',
  'tobacco',
  'coldAir',
  'animals',
  'dust',
  'outdoorAllergens',
  'workplaceExposure',
  'airPollution',
  'exercise',
  'unknown',
] as const
export type Trigger = (typeof TRIGGERS)[number]

export const MEDICATION_TYPES = ['rescue', 'controller'] as const
export const SOURCES = ['sensor', 'manual'] as const
export const ROLES = ['patient', 'caregiver'] as const

/** Night event window of spec section 8: 22:00 (inclusive) to 06:00 (exclusive), user's local time. */
export const NIGHT_START_HOUR = 22
export const NIGHT_END_HOUR = 6

/** Events per page of getEvents (the spec does not show one; the sandbox uses this). */
export const EVENTS_PAGE_SIZE = 50

// ---------------------------------------------------------------------------------------------
// Field schemas
// ---------------------------------------------------------------------------------------------

/** ISO 8601 date-time with `Z` or an offset (a date-time without one would be ambiguous). */
export const IsoDateTime = z.iso.datetime({offset: true, message: 'expected an ISO 8601 date-time with Z or an offset'})

/** A MAC address, `AA:BB:CC:DD:EE:FF`: `-` separators and lower case are accepted and normalised to that form. */
export const MAC_PATTERN = /^(?:[\dA-F]{2}:){5}[\dA-F]{2}$/
export const Mac = z
  .string()
  .trim()
  .toUpperCase()
  .overwrite((v) => v.replaceAll('-', ':'))
  .regex(MAC_PATTERN, 'expected a MAC address like AA:BB:CC:DD:EE:FF')

/** BCP 47 language tag, checked by the runtime's own Intl. */
export const Bcp47 = z.string().refine((v) => {
  try {
    return Intl.getCanonicalLocales(v).length === 1
  } catch {
    return false
  }
}, 'expected a BCP 47 language tag such as en-US')

/** IANA time zone, checked by the runtime's own Intl. */
export const TimeZone = z.string().refine((v) => {
  try {
    return new Intl.DateTimeFormat('en-US', {timeZone: v}).resolvedOptions().timeZone.length > 0
  } catch {
    return false
  }
}, 'expected an IANA time zone such as Asia/Manila')

// ---------------------------------------------------------------------------------------------
// Plan (AddPlanMedicationRequest_1, EditPlanMedicationRequest_1, AddPlanSensorRequest_1: "not shown")
// ---------------------------------------------------------------------------------------------

/** One scheduled intake of a controller medication: local time of day and number of doses. */
export const Usage = z.looseObject({
  hour: z.number().int().min(0).max(23),
  minute: z.number().int().min(0).max(59),
  doses: z.number().int().min(1),
})

/** A sensor attached to a plan medication (AddPlanSensorRequest_1, and the sensors of a plan medication). */
export const PlanSensorInput = z.looseObject({
  mac: Mac,
  model: z.string().min(1),
  firstSyncDate: IsoDateTime.optional(),
  lastSyncDate: IsoDateTime.optional(),
  batteryLevel: z.number().min(0).max(100).optional(),
})

export const PlanSensor = z.looseObject({
  mac: z.string(),
  model: z.string().optional(),
  firstSyncDate: z.string().optional(),
  lastSyncDate: z.string().optional(),
  batteryLevel: z.number().optional(),
})

/** An id sent in a body: not empty and not only spaces (a path id is checked by idArg while argv is read). */
const BodyId = z.string().regex(/\S/, 'expected an id, not an empty or blank text')
/** The longest address RFC 5321 lets a mailbox have (254 characters): a longer one is refused before sending. */
export const MAX_EMAIL_LENGTH = 254

/** AddPlanMedicationRequest_1 ("not shown"): the medication id is required, usage list and sensors default to empty. */
export const AddPlanMedicationBody = z.looseObject({
  medicationId: BodyId,
  usageList: z.array(Usage).optional(),
  sensors: z.array(PlanSensorInput).optional(),
})

/**
 * A change needs something to change: a body with none of `fields` (empty, or only fields the
 * service does not know) is refused, by the CLI before sending and by the sandbox with a 400.
 */
function changesSomething(fields: readonly string[]) {
  return (body: Record<string, unknown>) => fields.some((f) => body[f] !== undefined)
}

const nothingToChange = (fields: readonly string[]) => ({message: `nothing to change: give at least one of ${fields.join(', ')}`})

const PLAN_MEDICATION_FIELDS = ['usageList', 'sensors'] as const

/** EditPlanMedicationRequest_1 ("not shown"): what is sent replaces the stored list; nothing else changes. At least one list. */
export const EditPlanMedicationBody = z
  .looseObject({
    usageList: z.array(Usage).optional(),
    sensors: z.array(PlanSensorInput).optional(),
  })
  .refine(changesSomething(PLAN_MEDICATION_FIELDS), nothingToChange(PLAN_MEDICATION_FIELDS))

/**
 * A plan medication. `medicationType` ("not shown"): the sandbox fills it from the group's
 * medication catalogue; when a service leaves it out, the plan check of `events add` checks the id only.
 */
export const PlanMedication = z.looseObject({
  medicationId: z.string(),
  medicationType: z.string().optional(),
  usageList: z.array(z.looseObject({hour: z.number(), minute: z.number(), doses: z.number()})).default([]),
  sensors: z.array(PlanSensor).default([]),
})
export type PlanMedication = z.output<typeof PlanMedication>

// ---------------------------------------------------------------------------------------------
// Users (Credentials_1, inline_response_200: "not shown")
// ---------------------------------------------------------------------------------------------

/** Credentials_1 ("not shown"): what createUser takes. */
export const CreateUserBody = z.looseObject({
  role: z.enum(ROLES),
  email: z.email().max(MAX_EMAIL_LENGTH, `expected an email address of at most ${MAX_EMAIL_LENGTH} characters`),
  password: z.string().min(1),
  givenName: z.string().min(1),
  familyName: z.string().min(1),
  language: Bcp47.optional(),
  timeZone: TimeZone.optional(),
})

/** POST /api/sign-in ("payload and response: not shown"): email and password; answers the user and sets the cookie. */
export const SignInBody = z.looseObject({email: z.string().min(1).max(MAX_EMAIL_LENGTH, `expected an email address of at most ${MAX_EMAIL_LENGTH} characters`), password: z.string().min(1)})

/** inline_response_200 ("not shown"): the user, with the plan (so a plan change is visible on getUser/getUserById). */
export const User = z.looseObject({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  givenName: z.string().optional(),
  familyName: z.string().optional(),
  birthDate: z.string().optional(),
  language: z.string().optional(),
  timeZone: z.string().optional(),
  disease: z.string().optional(),
  createdDate: z.string().optional(),
  plan: z.looseObject({medications: z.array(PlanMedication).default([])}).optional(),
  /** A caregiver's linked patients ("not shown": the sandbox's access rule, docs/health-support.md). */
  caregiverOf: z.array(z.string()).optional(),
})
export type User = z.output<typeof User>

// ---------------------------------------------------------------------------------------------
// Events (Event_2 create, Event_1 update, inline_response_201 / 200_1 / 200_2: "not shown")
// ---------------------------------------------------------------------------------------------

/** Event_2 ("not shown"): date, medication and its type are required; the rest defaults (manual, 1 dose, not preemptive, no symptoms). */
export const AddEventBody = z.looseObject({
  date: IsoDateTime,
  medicationId: BodyId,
  medicationType: z.enum(MEDICATION_TYPES),
  source: z.enum(SOURCES).optional(),
  doses: z.number().int().min(1).optional(),
  preemptive: z.boolean().optional(),
  symptoms: z.array(z.enum(SYMPTOMS)).optional(),
  triggers: z.array(z.enum(TRIGGERS)).optional(),
  address: z.string().optional(),
  addressConfirmed: z.boolean().optional(),
})

/**
 * Event_1 ("not shown"): the fields of Event_2, all optional, at least one of them. The fields sent
 * replace the stored ones (a PUT sent twice leaves the same event: idempotent). `nightEvent` is
 * derived, never sent.
 */
export const UpdateEventBody = someOf(AddEventBody.partial())

/** The object schema, refusing a value with none of its fields (changesSomething). */
function someOf<T extends z.ZodObject>(schema: T) {
  const fields = Object.keys(schema.shape)
  return schema.refine(changesSomething(fields), nothingToChange(fields))
}

/** An event as stored: nightEvent is derived from the date in the user's time zone (22:00-06:00). */
export const Event = z.looseObject({
  id: z.string(),
  date: z.string(),
  medicationId: z.string().optional(),
  medicationType: z.string().optional(),
  source: z.string().optional(),
  doses: z.number().optional(),
  preemptive: z.boolean().optional(),
  symptoms: z.array(z.string()).default([]),
  triggers: z.array(z.string()).default([]),
  address: z.string().optional(),
  addressConfirmed: z.boolean().optional(),
  nightEvent: z.boolean().optional(),
  createdDate: z.string().optional(),
  updatedDate: z.string().optional(),
})
export type Event = z.output<typeof Event>

/** Paging of a list ("token format: not shown"): opaque tokens; absent when there is no such page. */
export const Paging = z.looseObject({next: z.string().optional(), previous: z.string().optional()})

/** inline_response_200_2 ("not shown"): one page of events, newest first. */
export const EventsPage = z.looseObject({events: z.array(Event), paging: Paging.default({})})
export type EventsPage = z.output<typeof EventsPage>


/**
 * Query of getEvents (spec section 4). Lists match when an event has ANY of the values given
 * (medicationIds, symptoms, triggers); startDate and endDate are both inclusive. A paging token
 * is sent together with the same filters as the first request.
 */
export const EventsQuery = z.looseObject({
  addressConfirmed: QueryBool.optional(),
  startDate: IsoDateTime.optional(),
  endDate: IsoDateTime.optional(),
  medicationType: z.enum(MEDICATION_TYPES).optional(),
  medicationIds: QueryList.optional(),
  nightEvent: QueryBool.optional(),
  pagingToken: z.string().optional(),
  preemptive: QueryBool.optional(),
  source: z.enum(SOURCES).optional(),
  symptoms: QueryList.pipe(z.array(z.enum(SYMPTOMS))).optional(),
  triggers: QueryList.pipe(z.array(z.enum(TRIGGERS))).optional(),
})
export type EventsQuery = z.output<typeof EventsQuery>

// ---------------------------------------------------------------------------------------------
// Metrics (inline_response_200_4: "not shown")
// ---------------------------------------------------------------------------------------------

/** One time window: its first local day (`YYYY-MM-DD`; a series point has its full date-time) and one value per metric. */
export const MetricWindow = z.looseObject({
  date: z.string(),
  values: z.record(z.string(), z.number().nullable()),
})
export type MetricWindow = z.output<typeof MetricWindow>

/**
 * inline_response_200_4 ("not shown"): for each period asked, its windows in date order; the
 * range actually used and the user's time zone, which every window is computed in.
 */
export const MetricsResult = z.looseObject({
  startDate: z.string().optional(),
  endDate: z.string().optional(),
  timeZone: z.string().optional(),
  periods: z.record(z.string(), z.array(MetricWindow)),
  paging: Paging.optional(),
})
export type MetricsResult = z.output<typeof MetricsResult>

/** Query of getMetrics. The name/period pairing is checked by the handler (400, spec section 7 rule 1). */
export const MetricsQuery = z.looseObject({
  name: QueryList,
  period: QueryList.optional(),
  startDate: IsoDateTime.optional(),
  endDate: IsoDateTime.optional(),
  pagingToken: z.string().optional(),
})

// ---------------------------------------------------------------------------------------------
// Group configuration (inline_response_200_3: "not shown")
// ---------------------------------------------------------------------------------------------

export const GroupMedication = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  shortName: z.string().optional(),
  type: z.string().optional(),
  formFactor: z.string().optional(),
  diseases: z.array(z.string()).optional(),
})

export const GroupConfig = z.looseObject({
  id: z.string(),
  name: z.string(),
  displayName: z.string().optional(),
  country: z.string().optional(),
  language: z.string().optional(),
  timeZone: z.string().optional(),
  medications: z.array(GroupMedication).default([]),
  actRequired: z.boolean().optional(),
  catRequired: z.boolean().optional(),
  supportEmail: z.string().optional(),
  supportPhone: z.string().optional(),
})
export type GroupConfig = z.output<typeof GroupConfig>

// ---------------------------------------------------------------------------------------------
// The table
//
// Retries: GET and PUT are idempotent and retried on 429/502/503/504 and dropped connections.
// DELETEs are idempotent in HTTP terms (a second delete of the same record changes nothing more)
// but destructive: they are confirmed first, and we do NOT retry them, so that one confirmation
// is one request and a 404 after a lost answer cannot be mistaken for a failure of the first.
// POST and PATCH are never retried.
// ---------------------------------------------------------------------------------------------

/** Every operation of the health service, in the spec's order, then sign-in. */
export const healthService = defineService({
  name: 'health',
  operations: {
    /** Create a manual event. */
    addEvent: {
      method: 'POST',
      path: '/api/users/{userId}/events',
      auth: 'session',
      body: AddEventBody,
      response: Event,
      successStatus: 201,
    },
    /** List events, newest first, with filters and paging. */
    getEvents: {
      method: 'GET',
      path: '/api/users/{userId}/events',
      auth: 'session',
      query: EventsQuery,
      response: EventsPage,
      paging: {token: 'pagingToken', items: 'events', next: 'paging.next'},
    },
    /** One event. */
    getEventById: {method: 'GET', path: '/api/users/{userId}/events/{eventId}', auth: 'session', response: Event},
    /** Update an event (the fields sent replace the stored ones). */
    updateEvent: {
      method: 'PUT',
      path: '/api/users/{userId}/events/{eventId}',
      auth: 'session',
      body: UpdateEventBody,
      successStatus: 204,
    },
    /** Delete an event. */
    deleteEvent: {
      method: 'DELETE',
      path: '/api/users/{userId}/events/{eventId}',
      auth: 'session',
      successStatus: 204,
      idempotent: false, // one confirmation, one request (above)
      destructive: true,
    },
    /** Configuration of a group, by id or name. */
    getGroupConfig: {method: 'GET', path: '/api/groups/{idOrName}/config', auth: 'none', response: GroupConfig},
    /** Metrics computed from the events, grouped into time windows. */
    getMetrics: {method: 'GET', path: '/api/users/{userId}/metrics', auth: 'session', query: MetricsQuery, response: MetricsResult},
    /** Add a medication to the plan. */
    addPlanMedication: {
      method: 'POST',
      path: '/api/users/{userId}/plan/medication',
      auth: 'session',
      body: AddPlanMedicationBody,
      successStatus: 201,
    },
    /** Change a plan medication (usage list, sensors). */
    patchPlanMedication: {
      method: 'PATCH',
      path: '/api/users/{userId}/plan/medication/{medicationId}',
      auth: 'session',
      body: EditPlanMedicationBody,
      successStatus: 204,
    },
    /** Remove a medication from the plan. */
    deletePlanMedication: {
      method: 'DELETE',
      path: '/api/users/{userId}/plan/medication/{medicationId}',
      auth: 'session',
      successStatus: 204,
      idempotent: false, // one confirmation, one request (above)
      destructive: true,
    },
    /** Attach a sensor to a plan medication. */
    addPlanSensor: {
      method: 'POST',
      path: '/api/users/{userId}/plan/medication/{medicationId}/sensor',
      auth: 'session',
      body: PlanSensorInput,
      successStatus: 201,
    },
    /** Detach a sensor from a plan medication. */
    deletePlanSensor: {
      method: 'DELETE',
      path: '/api/users/{userId}/plan/medication/{medicationId}/sensor/{mac}',
      auth: 'session',
      successStatus: 204,
      idempotent: false, // one confirmation, one request (above)
      destructive: true,
    },
    /** Create a patient or caregiver account (answers the user and sets the session cookie). */
    createUser: {method: 'POST', path: '/api/users', auth: 'none', body: CreateUserBody, response: User, successStatus: 201},
    /** The signed-in user. */
    getUser: {method: 'GET', path: '/api/users/me', auth: 'session', response: User},
    /** A user by id (success status "not shown": 200, like getUser). */
    getUserById: {method: 'GET', path: '/api/users/{userId}', auth: 'session', response: User},
    /** Sign in with email and password (answers the user and sets the session cookie). */
    signIn: {method: 'POST', path: '/api/sign-in', auth: 'none', body: SignInBody, response: User},
  },
})

/** The rows by operation id: `healthOps.<id>` everywhere a row is named (the table is the only list of names). */
export const healthOps = healthService.operations
