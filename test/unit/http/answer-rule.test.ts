/**
 * The one rule for answers, over every row of both tables (issue 45): a loopback service answers
 * each row with its good answer (which must be read), then with every shape it must not be
 * taken as: each is an UnreadableAnswerError (exit 6) naming what arrived, and the call returns
 * nothing. A row added to a table without a request below fails the first test.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import * as z from 'zod'

import type {Operation} from '../../../src/http/operation.js'

import {ExitCode} from '../../../src/errors.js'
import {UnreadableAnswerError} from '../../../src/http/answer.js'
import {ServiceClient} from '../../../src/http/client.js'
import {closeConnections} from '../../../src/http/connections.js'
import {HttpTransport} from '../../../src/http/http-transport.js'
import {sandboxControl} from '../../../src/runtime/sandbox-control.js'
import {checkoutService} from '../../../src/services/checkout/operations.js'
import {healthService} from '../../../src/services/health/operations.js'
import {type Answer, hostile, type HostileService, hostileService, json, SHAPES} from '../../helpers/hostile-service.js'

const AMOUNT = {currency: 'PHP', value: '10.00'}
const HOOK = {callbackUrl: 'https://shop.example/hook', name: 'CHECKOUT_SUCCESS'}
const LOOK = {appleTouchIconUrl: 'https://a.example/t.png', colorScheme: '#123456', customTitle: 'Shop', iconUrl: 'https://a.example/i.png', logoUrl: 'https://a.example/l.png'}
const EVENT = {date: '2026-01-01T08:00:00Z', medicationId: 'med-1', medicationType: 'rescue'}

/** A request each row takes (its body and query pass its schemas, so it is sent). */
const REQUESTS: Record<string, {body?: unknown; query?: Record<string, unknown>}> = {
  initiateCheckout: {body: {items: [{name: 'Tea'}], requestReferenceNumber: 'r-1', totalAmount: AMOUNT}},
  getCheckout: {},
  voidCheckout: {body: {reason: 'dup'}},
  refundCheckout: {body: {amount: AMOUNT, reason: 'dup'}},
  listRefunds: {},
  getRefund: {},
  registerWebhook: {body: HOOK},
  listWebhooks: {},
  updateWebhook: {body: HOOK},
  deleteWebhook: {},
  setCustomization: {body: LOOK},
  getCustomization: {},
  removeCustomization: {},
  addEvent: {body: EVENT},
  getEvents: {},
  getEventById: {},
  updateEvent: {body: {doses: 2}},
  deleteEvent: {},
  getGroupConfig: {},
  getMetrics: {query: {name: ['eventsRescue'], period: ['daily']}},
  addPlanMedication: {body: {medicationId: 'med-1'}},
  patchPlanMedication: {body: {usageList: []}},
  deletePlanMedication: {},
  addPlanSensor: {body: {mac: 'AA:BB:CC:DD:EE:FF', model: 'm'}},
  deletePlanSensor: {},
  createUser: {body: {email: 'a@example.com', familyName: 'B', givenName: 'A', password: 'pw', role: 'patient'}},
  getUser: {},
  getUserById: {},
  signIn: {body: {email: 'a@example.com', password: 'pw'}},
}

const ROWS: Operation[] = [...checkoutService.list, ...healthService.list]

type Schema = z.ZodType & {_zod: {def: {type: string; element?: Schema; options?: Schema[]; in?: Schema; entries?: Record<string, string>}}; shape?: Record<string, Schema>}

/** The smallest value a response schema reads: its required fields only, each of the simplest kind. */
function sample(schema: Schema): unknown {
  const {def} = schema._zod
  switch (def.type) {
    case 'object': {
      return Object.fromEntries(Object.entries(schema.shape!).filter(([, s]) => !s.safeParse(undefined).success).map(([k, s]) => [k, sample(s)]))
    }

    case 'array': {
      return [sample(def.element!)]
    }

    case 'union': {
      return sample(def.options![0])
    }

    case 'pipe': {
      return sample(def.in!)
    }

    case 'number': {
      return 1
    }

    case 'boolean': {
      return true
    }

    case 'record': {
      return {}
    }

    case 'enum': {
      return Object.values(def.entries!)[0]
    }

    default: {
      return 'x'
    }
  }
}

/** The object a field of the answer is declared on: the answer's, or each item's of a list. */
function objectSchema(schema: Schema): Schema | undefined {
  if (schema._zod.def.type === 'array') return objectSchema(schema._zod.def.element!)
  return schema._zod.def.type === 'object' ? schema : undefined
}

/** A field the row declares: a required one when there is one (else any), and a value of another type. */
function declaredField(schema: Schema): {name: string; required: boolean; wrong: unknown} | undefined {
  const object = objectSchema(schema)
  if (!object) return undefined
  const fields = Object.entries(object.shape!)
  const required = fields.find(([, s]) => !s.safeParse(undefined).success)
  const [name, field] = required ?? fields[0]
  const wrong = [12_345, 'text', true, {}, [1]].find((v) => !field.safeParse(v).success)
  return {name, required: Boolean(required), wrong}
}

let answer: Answer = json({})
let service: HostileService
beforeAll(async () => {
  service = await hostileService(() => answer)
})
afterAll(async () => {
  await closeConnections()
  await service.close()
})

function call(row: Operation) {
  const client = new ServiceClient({
    retry: {maxRetries: 0},
    target: {baseUrl: service.origin, profileName: 'test', publicKey: 'pk-test-Aa11Bb22Cc33', secretKey: 'sk-test-Dd44Ee55Ff66', service: row.service, session: 's%3Asess-Gg77Hh88'},
  })
  const params = Object.fromEntries([...row.path.matchAll(/{(\w+)}/g)].map(([, name]) => [name, 'id-1']))
  return client.call(row, {params, ...REQUESTS[row.id]} as never)
}

/** The good answer of a row: its success status, the sample of its schema (nothing for a row without one). */
function goodAnswer(row: Operation): Answer {
  return row.response ? json(sample(row.response as Schema), row.successStatus) : {status: row.successStatus}
}

/** Every answer the row must refuse, by name. */
function unexpected(row: Operation): [string, Answer][] {
  const other = row.successStatus === 200 ? 202 : 200
  const cases: [string, Answer][] = [
    ['redirect-302', hostile('redirect-302', null, '')],
    ['redirect-307', hostile('redirect-307', null, '')],
    [`HTTP ${other} where ${row.successStatus} is due`, {...goodAnswer(row), status: other}],
  ]
  if (!row.response) return cases
  const good = sample(row.response as Schema)
  const field = declaredField(row.response as Schema)
  for (const shape of SHAPES) {
    if (shape.startsWith('redirect')) continue
    // A schema that requires nothing reads an object wrapped in another, or without a field, as itself with fewer fields.
    if ((shape === 'wrapped' || shape === 'missing-field') && !Array.isArray(good) && !field?.required) continue
    if ((shape === 'missing-field' || shape === 'wrong-type') && !field) continue
    cases.push([shape, hostile(shape, good, field?.name ?? '', field?.wrong)])
  }

  cases.push(['an empty body', {status: row.successStatus, headers: {'content-type': 'application/json'}}])
  return cases
}

describe('every row of both tables', () => {
  it('has a request here, and reads its good answer', async () => {
    expect(ROWS.map((r) => r.id).filter((id) => !(id in REQUESTS))).toEqual([])
    for (const row of ROWS) {
      answer = goodAnswer(row)
      const res = await call(row)
      expect(res.status, row.id).toBe(row.successStatus)
    }
  })

  describe.each(ROWS.map((row) => [row.id, row] as const))('%s', (_id, row) => {
    it.each(unexpected(row))('%s: exit 6, nothing returned', async (_name, odd) => {
      answer = odd
      const error = await call(row).then(
        (res) => expect.fail(`read ${JSON.stringify(res.data)} from ${JSON.stringify(odd)}`),
        (error_: unknown) => error_,
      )
      expect(error).toBeInstanceOf(UnreadableAnswerError)
      const unreadable = error as UnreadableAnswerError
      expect(unreadable.exitCode).toBe(ExitCode.Server)
      expect(unreadable.message).toMatch(new RegExp(`^the ${row.id} answer could not be read: HTTP ${odd.status}, [^,]+, .+; nothing was taken from it`))
      expect(unreadable.outcomeUnknown).toBe(row.method !== 'GET')
    })
  })
})

describe('a sandbox control call (no row: any 2xx JSON body)', () => {
  const control = () => sandboxControl(new HttpTransport({retry: {maxRetries: 0}}), {origin: service.origin, token: 'tok-Aa11Bb22Cc33'}, 'GET', 'clock')

  it('reads a JSON answer, and refuses a redirect, an HTML page and cut-off JSON (exit 6)', async () => {
    answer = json({now: '2026-01-01T00:00:00.000Z'})
    expect(await control()).toEqual({now: '2026-01-01T00:00:00.000Z'})
    for (const shape of ['redirect-307', 'html', 'cut-off'] as const) {
      answer = hostile(shape, {now: '2026-01-01T00:00:00.000Z'}, 'now')
      const error = await control().then(() => undefined, (error_: unknown) => error_)
      expect(error, shape).toBeInstanceOf(UnreadableAnswerError)
      expect((error as UnreadableAnswerError).message).toMatch(/^the sandbox clock answer could not be read: HTTP \d{3}, /)
    }
  })
})
