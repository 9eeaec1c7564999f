/**
 * A third service, invented here, reached the way health and checkout are: its table (one row),
 * its client module (auth, headers, error shape, refusal codes) registered with the HTTP layer by
 * one line, its sandbox module (one typed handler, its auth, error shape and answer headers)
 * registered with the sandbox by one line. Then the real ServiceClient and transport call it on an
 * in-process sandbox over loopback. Nothing outside this file knows "parcels".
 */
import {afterAll, beforeAll, describe, expect, expectTypeOf, it} from 'vitest'
import {z} from 'zod'

import {pagedRow} from '../../src/cli/api-paginate.js'
import {ApiError, CredentialsError, ExitCode, UsageError} from '../../src/errors.js'
import {ServiceClient} from '../../src/http/client.js'
import {defineService} from '../../src/http/operation.js'
import {registerServiceModule, serviceModule, type ServiceModule, type ServiceTarget} from '../../src/http/services.js'
import {targetOf} from '../../src/profiles/resolve.js'
import {sandboxProfile} from '../../src/profiles/schema.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {sandboxModules} from '../../src/sandbox/modules.js'
import {SandboxError, sandboxModule} from '../../src/sandbox/types.js'

// --- src/services/parcels/operations.ts: the table ---------------------------------------------
const Parcel = z.looseObject({parcelId: z.string(), weight: z.number(), unit: z.enum(['kg', 'lb']), status: z.string()})
const parcels = defineService({
  name: 'parcels',
  operations: {
    getParcel: {
      method: 'GET',
      path: '/v2/parcels/{parcelId}',
      auth: 'secret',
      query: z.object({unit: z.enum(['kg', 'lb']).default('kg')}),
      response: Parcel,
    },
  },
})
const parcelsOps = parcels.operations

const TOKEN = 'prc_test_4f1c0ffee'
const TRACE_HEADER = 'x-parcels-trace'

// --- src/services/parcels/client-module.ts: how the HTTP layer reaches it --------------------------
// A bearer token, a client header on every call, errors as `{fault: {code, text, params}}`.
const parcelsClientModule: ServiceModule = {
  name: 'parcels',
  auth(target, kind) {
    const headers: Record<string, string> = {'x-parcels-client': 'opsctl'}
    if (kind === 'none') return {headers, secrets: []}
    if (!target.secretKey) throw new CredentialsError('No parcels token in the profile')
    headers.authorization = `Bearer ${target.secretKey}`
    return {headers, secrets: [target.secretKey]}
  },
  curlAuth: (_target, kind) => ["-H 'x-parcels-client: opsctl'", ...(kind === 'none' ? [] : ['-H "authorization: Bearer $OPSCTL_PARCELS_TOKEN"'])],
  requestIdHeader: TRACE_HEADER,
  errorFields(body) {
    const fault = (body.fault ?? {}) as {code?: unknown; params?: {name: string; why: string}[]; text?: unknown}
    return {
      code: typeof fault.code === 'string' ? fault.code : undefined,
      message: typeof fault.text === 'string' ? fault.text : undefined,
      fieldErrors: fault.params?.map((p) => ({field: p.name, description: p.why})),
    }
  },
  refusalCodes: new Set(['PARCEL_HELD']),
  operations: async () => parcels.list,
}

// --- src/sandbox/parcels/: its emulation -----------------------------------------------------------
const parcelsSandbox = sandboxModule({
  service: parcels,
  prefix: '/parcels',
  openState: () => ({dump: async () => ({}), async load() {}, async reset() {}}),
  authenticate(_op, {headers}) {
    if (headers['x-parcels-client'] !== 'opsctl') throw new SandboxError(400, 'CLIENT_UNNAMED', 'Say who you are in x-parcels-client')
    if (headers.authorization !== `Bearer ${TOKEN}`) throw new SandboxError(401, 'TOKEN_REJECTED', 'Bearer token missing or unknown')
    return {}
  },
  errors: {
    body: (error: SandboxError) => ({
      fault: {code: error.code, text: error.message, params: error.fields.map((f) => ({name: f.field, why: f.description}))},
    }),
    codeForStatus: (status) => `PARCELS_${status}`,
  },
  answerHeaders: (request) => ({[TRACE_HEADER]: `trc-${request.id}`}),
  handlers: {
    getParcel(req) {
      if (req.params.parcelId === 'held') throw new SandboxError(409, 'PARCEL_HELD', 'The parcel is held at customs')
      if (req.params.parcelId === 'lost') throw new SandboxError(404, 'PARCEL_UNKNOWN', 'No such parcel')
      // typed from the row: the query's parsed output (its default filled), the answer's fields
      const weight = req.query.unit === 'lb' ? 3.3 : 1.5
      return {parcelId: req.params.parcelId, weight, unit: req.query.unit, status: 'IN_TRANSIT'}
    },
  },
})

// --- the registration lines ----------------------------------------------------------------------
registerServiceModule(parcelsClientModule)
const modules = [...sandboxModules, parcelsSandbox]

let sandbox: RunningSandbox
beforeAll(async () => {
  sandbox = await createSandbox({modules, port: 0, notice() {}})
})
afterAll(async () => {
  await sandbox?.close()
})

function client(target: Partial<ServiceTarget> = {}): ServiceClient {
  return new ServiceClient({target: {service: 'parcels', baseUrl: `${sandbox.origin}/parcels`, secretKey: TOKEN, ...target}})
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (error_: unknown) => error_,
  )
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

describe('an invented third service, registered by one line on each side', () => {
  it('answers through the real client and transport, typed from its row', async () => {
    const {data, requestId, status} = await client().call(parcelsOps.getParcel, {params: {parcelId: 'p_1'}, query: {unit: 'lb'}})
    expectTypeOf(data.weight).toEqualTypeOf<number>()
    expectTypeOf(data.unit).toEqualTypeOf<'kg' | 'lb'>()
    expect(status).toBe(200)
    expect(data).toEqual({parcelId: 'p_1', weight: 3.3, unit: 'lb', status: 'IN_TRANSIT'})
    expect(requestId).toMatch(/^trc-/)
    // @ts-expect-error a misspelt path parameter fails tsc
    await expect(client().call(parcelsOps.getParcel, {params: {parcel: 'p_1'}})).rejects.toThrow()
  })

  it('authenticates as its module says: a wrong token is its 401, read in its own error shape (exit 3)', async () => {
    const error = await refusal(client({secretKey: 'prc_wrong'}).call(parcelsOps.getParcel, {params: {parcelId: 'p_1'}}))
    expect(error).toMatchObject({status: 401, code: 'TOKEN_REJECTED', serverMessage: 'Bearer token missing or unknown', service: 'parcels'})
    expect(error.exitCode).toBe(ExitCode.Auth)
    expect(error.requestId).toMatch(/^trc-/)
    expect(error.message).not.toContain('prc_wrong')

    // the header its client module adds to every call is one its sandbox module requires
    const bare = await fetch(`${sandbox.origin}/parcels/v2/parcels/p_1`, {headers: {authorization: `Bearer ${TOKEN}`}})
    expect({status: bare.status, body: await bare.json()}).toEqual({
      status: 400,
      body: {fault: {code: 'CLIENT_UNNAMED', text: 'Say who you are in x-parcels-client', params: []}},
    })
  })

  it('a credential missing from the target is refused before anything is sent', async () => {
    await expect(client({secretKey: undefined}).call(parcelsOps.getParcel, {params: {parcelId: 'p_1'}})).rejects.toBeInstanceOf(CredentialsError)
  })

  it("validates the request from the row: the client refuses a bad query (exit 2, nothing sent), the sandbox answers its 400 in the service's shape", async () => {
    const refused = client().call(parcelsOps.getParcel, {params: {parcelId: 'p_1'}, query: {unit: 'stone' as 'kg'}})
    await expect(refused).rejects.toBeInstanceOf(UsageError)
    await expect(refused).rejects.toThrow(/unit/)

    const error = await refusal(client().raw('GET', '/v2/parcels/p_1', {auth: 'secret', query: {unit: 'stone'}}))
    expect(error).toMatchObject({status: 400, code: 'PARCELS_400', service: 'parcels'})
    expect(error.fieldErrors.map((f) => f.field)).toEqual(['unit'])

  })

  it('its refusal codes are business-rule refusals (exit 5); its 404 is not found (exit 4)', async () => {
    const held = await refusal(client().call(parcelsOps.getParcel, {params: {parcelId: 'held'}}))
    expect(held).toMatchObject({status: 409, code: 'PARCEL_HELD', exitCode: ExitCode.Refused})
    const lost = await refusal(client().call(parcelsOps.getParcel, {params: {parcelId: 'lost'}}))
    expect(lost).toMatchObject({status: 404, code: 'PARCEL_UNKNOWN', exitCode: ExitCode.NotFound})
  })

  it("a tenant is given its base URL beside the others' and serves it", async () => {
    const created = await fetch(`${sandbox.origin}/__sandbox/tenants`, {
      method: 'POST',
      headers: {authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json'},
      body: '{}',
    })
    const tenant = (await created.json()) as {checkoutBaseUrl: string; healthBaseUrl: string; id: string; parcelsBaseUrl: string}
    expect(tenant.parcelsBaseUrl).toBe(`${sandbox.origin}/t/${tenant.id}/parcels`)
    expect(tenant.checkoutBaseUrl).toBe(`${sandbox.origin}/t/${tenant.id}/checkout`)
    const {data} = await client({baseUrl: tenant.parcelsBaseUrl}).call(parcelsOps.getParcel, {params: {parcelId: 'p_2'}})
    expect(data).toMatchObject({parcelId: 'p_2', unit: 'kg'})
  })

  it("a profile's section of the service is its target, as health's and checkout's are", async () => {
    const profile = {...sandboxProfile(), parcels: {baseUrl: `${sandbox.origin}/parcels`, secretKey: TOKEN}}
    const target = targetOf({name: 'shipping', profile}, 'parcels')
    expect(target).toEqual({service: 'parcels', profileName: 'shipping', baseUrl: `${sandbox.origin}/parcels`, secretKey: TOKEN})
    const {data} = await new ServiceClient({target}).call(parcelsOps.getParcel, {params: {parcelId: 'p_3'}})
    expect(data.parcelId).toBe('p_3')
  })

  it("api --paginate reads its table through its module: a row of it that has no pages is named, nothing sent", async () => {
    const rows = await serviceModule('parcels').operations()
    expect(() => pagedRow('parcels', rows, 'GET', '/v2/parcels/p_3')).toThrow('--paginate follows a paged list, and getParcel (GET /v2/parcels/{parcelId}) has no pages; nothing was sent')
  })

  it('the real services are served beside it, each in its own shape', async () => {
    const health = await fetchJson(`${sandbox.origin}/api/users/me`)
    const checkout = await fetchJson(`${sandbox.origin}/checkout/v1/webhooks`)
    const route = await fetchJson(`${sandbox.origin}/parcels/v2/nothing-here`)
    expect(health).toMatchObject({status: 400, body: {code: 'API_VERSION_REQUIRED'}})
    expect(checkout.body).toMatchObject({code: 'K001'})
    expect(route).toMatchObject({status: 404, body: {fault: {code: 'PARCELS_404'}}})
  })
})

async function fetchJson(url: string): Promise<{body: any; status: number}> {
  const response = await fetch(url)
  return {status: response.status, body: await response.json()}
}
