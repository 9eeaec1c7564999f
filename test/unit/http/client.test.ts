import {describe, expect, it} from 'vitest'
import {z} from 'zod'

import {ApiError, ExitCode, NetworkError, UsageError} from '../../../src/errors.js'
import {type ClientOptions, ServiceClient} from '../../../src/http/client.js'
import {DryRunRequest} from '../../../src/http/dry-run.js'
import {operation} from '../../../src/http/operation.js'
import {type ServiceTarget} from '../../../src/http/services.js'
import {mockedServicesPerTest} from '../../helpers/command.js'

const PUBLIC_KEY = 'pk-test-Aa11Bb22Cc33Dd44'
const SECRET_KEY = 'sk-test-Ee55Ff66Gg77Hh88'
const SESSION = 's%3Asess-Zz99Yy88Xx77'
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`

const CHECKOUT: ServiceTarget = {
  service: 'checkout',
  profileName: 'test',
  baseUrl: 'https://pay.example.com/checkout',
  publicKey: PUBLIC_KEY,
  secretKey: SECRET_KEY,
}
const HEALTH: ServiceTarget = {service: 'health', profileName: 'test', baseUrl: 'https://health.example.com', session: SESSION}

const createCheckout = operation({
  id: 'createCheckout',
  service: 'checkout',
  method: 'POST',
  path: '/v1/checkouts',
  auth: 'public',
  body: z.looseObject({requestReferenceNumber: z.string(), totalAmount: z.looseObject({value: z.string(), currency: z.string()})}),
  response: z.looseObject({checkoutId: z.string(), redirectUrl: z.string()}),
  successStatus: 200,
  idempotent: false,
})
const getCheckout = operation({
  id: 'getCheckout',
  service: 'checkout',
  method: 'GET',
  path: '/v1/checkouts/{checkoutId}',
  auth: 'secret',
  response: z.looseObject({id: z.string()}),
  successStatus: 200,
  idempotent: true,
})
const refundCheckout = operation({
  id: 'refundCheckout',
  service: 'checkout',
  method: 'POST',
  path: '/v1/checkouts/{checkoutId}/refunds',
  auth: 'secret',
  body: z.looseObject({reason: z.string(), amount: z.looseObject({value: z.string(), currency: z.string()})}),
  successStatus: 200,
  idempotent: false,
  destructive: true,
})
const getUser = operation({
  id: 'getUser',
  service: 'health',
  method: 'GET',
  path: '/api/users/me',
  auth: 'session',
  successStatus: 200,
  idempotent: true,
})
const listEvents = operation({
  id: 'listEvents',
  service: 'health',
  method: 'GET',
  path: '/api/users/me/events',
  auth: 'session',
  query: z.looseObject({symptoms: z.array(z.string()).optional(), nightEvent: z.boolean().optional(), source: z.string().optional()}),
  successStatus: 200,
  idempotent: true,
})
const signIn = operation({
  id: 'signIn',
  service: 'health',
  method: 'POST',
  path: '/api/sign-in',
  auth: 'none',
  body: z.looseObject({email: z.string(), password: z.string()}),
  successStatus: 200,
  idempotent: false,
})

const mocked = mockedServicesPerTest()

function client(target: ServiceTarget = CHECKOUT, options: Partial<ClientOptions> = {}): ServiceClient {
  // Retries without waiting, so that the retry tests stay fast; the real delays are measured in client-network.test.ts.
  return new ServiceClient({target, retry: {minTimeoutMs: 1, maxTimeoutMs: 5}, ...options})
}

function calls() {
  return mocked.agent.getCallHistory()?.calls() ?? []
}

async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }

  throw new Error('expected the call to fail')
}

const checkoutBody = {requestReferenceNumber: 'ref-1', totalAmount: {value: '12.34', currency: 'PHP'}}
const JSON_HEADERS = {'content-type': 'application/json'}

describe('URL building', () => {
  it('keeps the base URL path: https://host/checkout + /v1/checkouts', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
      .reply(200, {checkoutId: 'c-1', redirectUrl: 'https://pay.example.com/page/c-1'}, {headers: JSON_HEADERS})
    const res = await client().call(createCheckout, {body: checkoutBody})
    expect(res.data).toEqual({checkoutId: 'c-1', redirectUrl: 'https://pay.example.com/page/c-1'})
    expect(calls()[0].fullUrl).toBe('https://pay.example.com/checkout/v1/checkouts')
  })

  it('keeps the base path when the base URL ends with a slash', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(200, {id: 'c-1'}, {headers: JSON_HEADERS})
    await client({...CHECKOUT, baseUrl: 'https://pay.example.com/checkout/'}).call(getCheckout, {params: {checkoutId: 'c-1'}})
    expect(calls()[0].path).toBe('/checkout/v1/checkouts/c-1')
  })

  it('encodes path parameters so that a value cannot change the path', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/a%2Fb%3Fc%3Dd%20e%23f', method: 'GET'})
      .reply(200, {id: 'a/b?c=d e#f'}, {headers: JSON_HEADERS})
    const res = await client().call(getCheckout, {params: {checkoutId: 'a/b?c=d e#f'}})
    expect(res.data).toEqual({id: 'a/b?c=d e#f'})
    expect(calls()).toHaveLength(1)
  })

  it('refuses a dot segment as a path parameter (it would address another resource), sending nothing', async () => {
    for (const id of ['..', '.']) {
      const error = await failure(client().call(getCheckout, {params: {checkoutId: id}}))
      expect(error).toBeInstanceOf(UsageError)
      expect(error.exitCode).toBe(ExitCode.Usage)
    }

    expect(calls()).toHaveLength(0)
  })

  it('refuses a missing path parameter, sending nothing', async () => {
    // @ts-expect-error: the row's path names checkoutId, so tsc refuses this call too
    const error = await failure(client().call(getCheckout, {params: {}}))
    expect(error).toBeInstanceOf(UsageError)
    expect(error.message).toContain('checkoutId')
    expect(calls()).toHaveLength(0)
  })

  it('sends query arrays as repeated keys and leaves undefined values out', async () => {
    mocked.agent
      .get('https://health.example.com')
      .intercept({path: /^\/api\/users\/me/, method: 'GET'})
      .reply(200, {}, {headers: JSON_HEADERS})
    await client(HEALTH).call(listEvents, {query: {symptoms: ['cough', 'wheeze'], nightEvent: true, source: undefined}})
    expect(calls()[0].fullUrl).toBe('https://health.example.com/api/users/me/events?symptoms=cough&symptoms=wheeze&nightEvent=true')
  })

  it('sends a query given inside a raw path (opsctl api ... /v1/x?a=b) as a query, not as part of the path', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/webhooks?a=b&c=d', method: 'GET'})
      .reply(200, [], {headers: JSON_HEADERS})
    await client().raw('GET', '/v1/webhooks?a=b', {auth: 'secret', query: {c: 'd'}})
    expect(calls()[0].fullUrl).toBe('https://pay.example.com/checkout/v1/webhooks?a=b&c=d')
  })
})

describe('authentication', () => {
  it('checkout: the public key as Basic base64(key + ":") where the operation says public', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
      .reply(200, {checkoutId: 'c-1', redirectUrl: 'x'}, {headers: JSON_HEADERS})
    await client().call(createCheckout, {body: checkoutBody})
    const {headers} = calls()[0]
    expect(headers?.authorization).toBe(basic(PUBLIC_KEY))
    expect(headers?.authorization).toBe('Basic cGstdGVzdC1BYTExQmIyMkNjMzNEZDQ0Og==')
    expect(headers?.['content-type']).toBe('application/json')
    expect(headers?.cookie).toBeUndefined()
  })

  it('checkout: the secret key where the operation says secret', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(200, {id: 'c-1'}, {headers: JSON_HEADERS})
    await client().call(getCheckout, {params: {checkoutId: 'c-1'}})
    expect(calls()[0].headers?.authorization).toBe(basic(SECRET_KEY))
  })

  it('checkout: a missing key is exit 3 and nothing is sent', async () => {
    const error = await failure(client({...CHECKOUT, secretKey: undefined}).call(getCheckout, {params: {checkoutId: 'c-1'}}))
    expect(error.exitCode).toBe(ExitCode.Auth)
    expect(error.message).toMatch(/secret key/)
    expect(calls()).toHaveLength(0)
  })

  it('health: the session cookie, x-ph-api-version 3.14.0 and accept-language', async () => {
    mocked.agent
      .get('https://health.example.com')
      .intercept({path: '/api/users/me', method: 'GET'})
      .reply(200, {id: 'u-1'}, {headers: JSON_HEADERS})
    await client({...HEALTH, language: 'fil-PH'}).call(getUser)
    const {headers} = calls()[0]
    expect(headers?.cookie).toBe(`connect.sid=${SESSION}`)
    expect(headers?.['x-ph-api-version']).toBe('3.14.0')
    expect(headers?.['accept-language']).toBe('fil-PH')
    expect(headers?.authorization).toBeUndefined()
  })

  it('health: no accept-language unless one is set; the version header even without a session', async () => {
    mocked.agent.get('https://health.example.com').intercept({path: '/api/sign-in', method: 'POST'}).reply(200, {}, {headers: JSON_HEADERS})
    await client({...HEALTH, session: undefined}).call(signIn, {body: {email: 'a@example.com', password: 'pw-Secret-123'}})
    const {headers} = calls()[0]
    expect(headers?.['x-ph-api-version']).toBe('3.14.0')
    expect(headers?.['accept-language']).toBeUndefined()
    expect(headers?.cookie).toBeUndefined()
  })

  it('health: a session operation without a session is exit 3 and nothing is sent', async () => {
    const error = await failure(client({...HEALTH, session: undefined}).call(getUser))
    expect(error.exitCode).toBe(ExitCode.Auth)
    expect(calls()).toHaveLength(0)
  })
})

describe('request body validation', () => {
  it('an invalid body is a UsageError naming the field, and nothing is sent', async () => {
    // @ts-expect-error: what a user's file may hold; tsc refuses it in code
    const error = await failure(client().call(createCheckout, {body: {requestReferenceNumber: 42, totalAmount: {currency: 'PHP'}}}))
    expect(error).toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(ExitCode.Usage)
    expect(error.message).toContain('requestReferenceNumber')
    expect(error.message).toContain('totalAmount.value')
    expect(calls()).toHaveLength(0)
  })

  it('unknown fields of a valid body are kept and sent', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
      .reply(200, {checkoutId: 'c-1', redirectUrl: 'x'}, {headers: JSON_HEADERS})
    await client().call(createCheckout, {body: {...checkoutBody, metadata: {note: 'kept'}}})
    expect(JSON.parse(calls()[0].body as string)).toEqual({...checkoutBody, metadata: {note: 'kept'}})
  })

  it('a response without a field its schema declares is an error (exit 6), never passed on', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(200, {checkoutId: 'c-1', extra: true}, {headers: JSON_HEADERS})
    const error = await failure(client().call(getCheckout, {params: {checkoutId: 'c-1'}}))
    expect(error.exitCode).toBe(ExitCode.Server)
    expect(error.message).toBe(
      'the getCheckout answer could not be read: HTTP 200, application/json, id: Invalid input: expected string, received undefined; nothing was taken from it',
    )
  })

  it('fields the schema does not name pass through', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(200, {id: 'c-1', extra: true}, {headers: JSON_HEADERS})
    const res = await client().call(getCheckout, {params: {checkoutId: 'c-1'}})
    expect(res.data).toEqual({id: 'c-1', extra: true})
  })
})

describe('error bodies', () => {
  const cases: {
    name: string
    status: number
    body: string | object
    headers?: Record<string, string>
    exit: number
    message: string
    code?: string
    fields?: {field: string; description: string}[]
    requestId?: string
    /** asked of the health service (each service's client reads its own error shape) */
    health?: true
  }[] = [
    {
      name: 'checkout {code, message, parameters}',
      status: 400,
      body: {code: 'PY0001', message: 'Invalid request', parameters: [{field: 'totalAmount.value', description: 'must be a decimal'}]},
      headers: {'x-request-id': 'req-400'},
      exit: ExitCode.Refused,
      message: 'Invalid request',
      code: 'PY0001',
      fields: [{field: 'totalAmount.value', description: 'must be a decimal'}],
      requestId: 'req-400',
    },
    {
      name: 'checkout auth {error, code, reference}',
      status: 401,
      body: {error: 'Invalid API key', code: 'K001', reference: 'ref-401'},
      exit: ExitCode.Auth,
      message: 'Invalid API key',
      code: 'K001',
      requestId: 'ref-401',
    },
    {
      name: 'health {message, elements}',
      status: 400,
      body: {message: 'Validation failed', elements: [{id: 'invalid.email', field: 'email'}]},
      headers: {'x-ph-api-request-id': 'hreq-1'},
      health: true,
      exit: ExitCode.Refused,
      message: 'Validation failed',
      fields: [{field: 'email', description: 'invalid.email'}],
      requestId: 'hreq-1',
    },
    {
      name: 'HTML from a proxy',
      status: 502,
      body: '<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head><body><h1>502 Bad Gateway</h1></body></html>',
      headers: {'content-type': 'text/html'},
      exit: ExitCode.Server,
      message: '502 Bad Gateway',
    },
    {
      name: 'plain text',
      status: 500,
      body: 'upstream exploded\nstack line 1',
      headers: {'content-type': 'text/plain'},
      exit: ExitCode.Server,
      message: 'upstream exploded',
    },
    {name: 'empty body', status: 503, body: '', exit: ExitCode.Server, message: 'HTTP 503'},
    {name: '403', status: 403, body: {code: 'K003', message: 'Forbidden key'}, exit: ExitCode.Auth, message: 'Forbidden key', code: 'K003'},
    {
      name: '404',
      status: 404,
      body: {code: 'PY0044', message: 'Checkout not found'},
      exit: ExitCode.NotFound,
      message: 'Checkout not found',
    },
    {
      name: 'a business-rule refusal (PY0048) sent as 400',
      status: 400,
      body: {code: 'PY0048', message: 'Void window has closed'},
      exit: ExitCode.Refused,
      message: 'Void window has closed',
      code: 'PY0048',
    },
  ]

  for (const c of cases) {
    it(`${c.name} -> HTTP ${c.status}, exit ${c.exit}`, async () => {
      const body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body)
      const reply = [c.status, body, {headers: {...(typeof c.body === 'string' ? {} : JSON_HEADERS), ...c.headers}}] as const
      if (c.health)
        mocked.agent
          .get('https://health.example.com')
          .intercept({path: '/api/users/me', method: 'GET'})
          .reply(...reply)
      else
        mocked.agent
          .get('https://pay.example.com')
          .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
          .reply(...reply)
      const error = await failure(c.health ? client(HEALTH).call(getUser) : client().call(createCheckout, {body: checkoutBody}))
      expect(error).toBeInstanceOf(ApiError)
      expect(error.status).toBe(c.status)
      expect(error.exitCode).toBe(c.exit)
      expect(error.serverMessage).toBe(c.message)
      expect(error.message).toContain(c.message)
      expect(error.message).toContain(`HTTP ${c.status}`)
      if (c.code) expect(error.code).toBe(c.code)
      expect(error.fieldErrors).toEqual(c.fields ?? [])
      for (const f of c.fields ?? []) expect(error.message).toContain(`${f.field}: ${f.description}`)
      expect(error.requestId).toBe(c.requestId)
      expect(error.message).toContain(`request id ${c.requestId ?? 'none'}`)
      expect(JSON.stringify(error.toJSON())).not.toContain(PUBLIC_KEY)
    })
  }

  it('a server message that echoes the key is scrubbed', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(401, {error: `Unknown key ${SECRET_KEY}`, code: 'K001'}, {headers: JSON_HEADERS})
    const error = await failure(client().call(getCheckout, {params: {checkoutId: 'c-1'}}))
    expect(error.exitCode).toBe(ExitCode.Auth)
    expect(JSON.stringify(error.toJSON())).not.toContain(SECRET_KEY)
    expect(error.message).not.toContain(SECRET_KEY)
  })
})

describe('retries', () => {
  it('a non-idempotent POST that gets 503 is sent exactly once', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1/refunds', method: 'POST'})
      .reply(503, {message: 'busy'}, {headers: JSON_HEADERS})
      .persist()
    const error = await failure(
      client().call(refundCheckout, {params: {checkoutId: 'c-1'}, body: {reason: 'dup', amount: {value: '1.00', currency: 'PHP'}}}),
    )
    expect(error.exitCode).toBe(ExitCode.Server)
    expect(calls()).toHaveLength(1)
  })

  it('an idempotent GET that gets 503, 503, 200 succeeds after three attempts', async () => {
    const pool = mocked.agent.get('https://pay.example.com')
    pool.intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'}).reply(503, {message: 'busy'}, {headers: JSON_HEADERS}).times(2)
    pool.intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'}).reply(200, {id: 'c-1'}, {headers: JSON_HEADERS})
    const res = await client().call(getCheckout, {params: {checkoutId: 'c-1'}})
    expect(res.status).toBe(200)
    expect(res.data).toEqual({id: 'c-1'})
    expect(calls()).toHaveLength(3)
  })

  it('an idempotent GET gives up after the retry budget with the last error (exit 6)', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(503, {message: 'still busy'}, {headers: {...JSON_HEADERS, 'x-request-id': 'req-last'}})
      .persist()
    const error = await failure(
      client(CHECKOUT, {retry: {maxRetries: 2, minTimeoutMs: 1, maxTimeoutMs: 5}}).call(getCheckout, {params: {checkoutId: 'c-1'}}),
    )
    expect(error).toBeInstanceOf(ApiError)
    expect(error.exitCode).toBe(ExitCode.Server)
    expect(error.serverMessage).toBe('still busy')
    expect(error.requestId).toBe('req-last')
    expect(calls()).toHaveLength(3)
  })

  it('a 4xx answer is never retried, even for an idempotent GET', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(404, {message: 'nope'}, {headers: JSON_HEADERS})
      .persist()
    const error = await failure(client().call(getCheckout, {params: {checkoutId: 'c-1'}}))
    expect(error.exitCode).toBe(ExitCode.NotFound)
    expect(calls()).toHaveLength(1)
  })

  it('raw requests retry only GET', async () => {
    const pool = mocked.agent.get('https://pay.example.com')
    pool.intercept({path: '/checkout/v1/webhooks', method: 'POST'}).reply(503, '').persist()
    pool.intercept({path: '/checkout/v1/webhooks', method: 'GET'}).reply(503, '').times(1)
    pool.intercept({path: '/checkout/v1/webhooks', method: 'GET'}).reply(200, [], {headers: JSON_HEADERS})
    const error = await failure(client().raw('POST', '/v1/webhooks', {auth: 'secret', body: {name: 'CHECKOUT_SUCCESS'}}))
    expect(error.exitCode).toBe(ExitCode.Server)
    expect(calls().filter((c) => c.method === 'POST')).toHaveLength(1)
    const res = await client().raw('GET', '/v1/webhooks', {auth: 'secret'})
    expect(res.data).toEqual([])
    expect(calls().filter((c) => c.method === 'GET')).toHaveLength(2)
  })
})

describe('--verbose trace', () => {
  it('shows method, URL, status, request id, headers and bodies, with every secret masked', async () => {
    const lines: string[] = []
    mocked.agent
      .get('https://health.example.com')
      .intercept({path: '/api/sign-in', method: 'POST'})
      .reply(
        200,
        {userId: 'u-1', token: 'tok-Rr55Ss66Tt77'},
        {
          headers: {...JSON_HEADERS, 'set-cookie': 'connect.sid=s%3Anew-Qq11Ww22Ee33; Path=/; HttpOnly', 'x-ph-api-request-id': 'hreq-9'},
        },
      )
    await client({...HEALTH, session: SESSION}, {trace: (t) => lines.push(t)}).call(signIn, {
      body: {email: 'a@example.com', password: 'pw-Secret-123'},
      headers: {cookie: `connect.sid=${SESSION}`},
    })
    const trace = lines.join('\n')
    expect(trace).toContain('> POST https://health.example.com/api/sign-in')
    expect(trace).toMatch(/< 200 POST https:\/\/health\.example\.com\/api\/sign-in \(\d+ ms, request id hreq-9\)/)
    expect(trace).toContain('x-ph-api-version: 3.14.0')
    expect(trace).toContain('a@example.com')
    expect(trace).toContain('u-1')
    for (const secret of ['pw-Secret-123', SESSION, 's%3Anew-Qq11Ww22Ee33', 'tok-Rr55Ss66Tt77']) expect(trace).not.toContain(secret)
    expect(trace).toMatch(/set-cookie: connect\.sid=\[REDACTED\]; Path=\//)
  })

  it('masks the Authorization header and keys in query strings', async () => {
    const lines: string[] = []
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: /^\/checkout\/v1\/webhooks/, method: 'GET'})
      .reply(200, [], {headers: JSON_HEADERS})
    await client(CHECKOUT, {trace: (t) => lines.push(t)}).raw('GET', '/v1/webhooks', {auth: 'secret', query: {apiKey: 'qk-Pp00Oo99Ii88'}})
    const trace = lines.join('\n')
    expect(trace).toContain('authorization: Basic [REDACTED]')
    expect(trace).not.toContain(basic(SECRET_KEY).slice(6))
    expect(trace).not.toContain(SECRET_KEY)
    expect(trace).not.toContain('qk-Pp00Oo99Ii88')
  })
})

describe('echoes of derived forms of a credential', () => {
  const forms = {
    'Basic base64(key:)': Buffer.from(`${SECRET_KEY}:`).toString('base64'),
    'Basic unpadded': Buffer.from(`${SECRET_KEY}:`).toString('base64').replace(/=+$/, ''),
    'base64(key)': Buffer.from(SECRET_KEY).toString('base64'),
    'base64url(key:)': Buffer.from(`${SECRET_KEY}:`).toString('base64url'),
    'URL-encoded key': encodeURIComponent(`${SECRET_KEY}`),
  }
  for (const [name, form] of Object.entries(forms)) {
    it(`scrubs ${name} from the message, the field errors, the request id and the trace`, async () => {
      const lines: string[] = []
      mocked.agent
        .get('https://pay.example.com')
        .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
        .reply(
          500,
          {message: `you sent ${form}`, code: 'E1', parameters: [{field: 'authorization', description: form}]},
          {headers: {...JSON_HEADERS, 'x-request-id': form}},
        )
      const error = await failure(client(CHECKOUT, {trace: (t) => lines.push(t)}).call(getCheckout, {params: {checkoutId: 'c-1'}}))
      expect(error.exitCode).toBe(ExitCode.Server)
      const shown = JSON.stringify(error.toJSON()) + error.message + lines.join('\n')
      expect(shown).toContain('you sent [REDACTED]')
      expect(shown).not.toContain(form)
    })
  }

  it('a key that straddles where a text message or a traced body is cut leaves no piece of itself', async () => {
    const lines: string[] = []
    const at = (n: number) => 'x'.repeat(n - 6)
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(500, `${at(200)}${SECRET_KEY} and ${at(2000 - 200 - SECRET_KEY.length - 5)}${SECRET_KEY}`, {
        headers: {'content-type': 'text/plain'},
      })
    const error = await failure(client(CHECKOUT, {trace: (t) => lines.push(t)}).call(getCheckout, {params: {checkoutId: 'c-1'}}))
    const prefix = SECRET_KEY.slice(0, 6)
    expect(error.message).not.toContain(prefix)
    expect(lines.join('\n')).not.toContain(prefix)
    // The cut now falls inside the marker, where the key was.
    expect(error.message).toMatch(/^x{194}\[REDAC/)
  })

  it('a session a sign-in answer sets is scrubbed from what the server says next', async () => {
    const session = 's%3Anew-Session-Kk90Ll12.sig'
    const origin = mocked.agent.get('https://health.example.com')
    origin
      .intercept({path: '/api/sign-in', method: 'POST'})
      .reply(200, {id: 'u-1'}, {headers: {...JSON_HEADERS, 'set-cookie': `connect.sid=${session}; Path=/; HttpOnly`}})
    origin.intercept({path: '/api/users/me', method: 'GET'}).reply(500, `session ${decodeURIComponent(session)} broke`)
    const health = client(HEALTH)
    await health.call(signIn, {body: {email: 'a@example.com', password: 'pw-Qq12Ww34'}})
    const error = await failure(health.call(getUser))
    expect(error.message).toContain('session [REDACTED] broke')
    expect(error.message).not.toContain('new-Session')
  })
})

describe('--verbose trace of an echoing server', () => {
  it('scrubs the profile credentials from a text body that echoes them', async () => {
    const lines: string[] = []
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(401, `bad key ${SECRET_KEY}`, {headers: {'content-type': 'text/plain', 'x-debug-key': SECRET_KEY}})
    const error = await failure(client(CHECKOUT, {trace: (t) => lines.push(t)}).call(getCheckout, {params: {checkoutId: 'c-1'}}))
    expect(error.exitCode).toBe(ExitCode.Auth)
    const trace = lines.join('\n')
    expect(trace).toContain('< 401 GET')
    expect(trace).toContain('bad key [REDACTED]')
    expect(trace).not.toContain(SECRET_KEY)
  })
})

describe('transport safety', () => {
  it('refuses to send a credential over plain http to a non-loopback host (exit 2, nothing sent)', async () => {
    const error = await failure(
      client({...CHECKOUT, baseUrl: 'http://pay.example.com/checkout'}).call(getCheckout, {params: {checkoutId: 'c-1'}}),
    )
    expect(error).toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(ExitCode.Usage)
    expect(error.message).toMatch(/plain HTTP/)
    expect(calls()).toHaveLength(0)
  })

  it('allows plain http to loopback: 127.0.0.1, localhost and [::1]', async () => {
    for (const origin of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']) {
      mocked.agent
        .get(origin)
        .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
        .reply(200, {id: 'c-1'}, {headers: JSON_HEADERS})
      const res = await client({...CHECKOUT, baseUrl: `${origin}/checkout`}).call(getCheckout, {params: {checkoutId: 'c-1'}})
      expect(res.data).toEqual({id: 'c-1'})
    }

    expect(calls()).toHaveLength(3)
  })

  it('refuses a password in the body over plain http to a non-loopback host, though the operation needs no key (exit 2, nothing sent)', async () => {
    const error = await failure(
      client({service: 'health', baseUrl: 'http://health.example.com'}).call(signIn, {
        body: {email: 'a@example.com', password: 'pw-Qq12Ww34'},
      }),
    )
    expect(error.exitCode).toBe(ExitCode.Usage)
    expect(error.message).toMatch(/Refusing to send credentials over plain HTTP to health\.example\.com/)
    expect(calls()).toHaveLength(0)
  })

  it('refuses a raw request carrying its own Authorization header over plain http (exit 2, nothing sent)', async () => {
    const error = await failure(
      client({service: 'checkout', baseUrl: 'http://pay.example.com'}).raw('GET', '/v1/webhooks', {
        auth: 'none',
        headers: {Authorization: 'Bearer tok-Rr56Tt78'},
      }),
    )
    expect(error.exitCode).toBe(ExitCode.Usage)
    expect(calls()).toHaveLength(0)
  })

  it('refuses a raw request carrying a header named like a secret over plain http, as -i masks it (exit 2, nothing sent)', async () => {
    for (const header of ['X-Auth-Token', 'X-Session-Id']) {
      const error = await failure(
        client({service: 'checkout', baseUrl: 'http://pay.example.com'}).raw('GET', '/v1/webhooks', {
          auth: 'none',
          headers: {[header]: 'tok-Rr56Tt78'},
        }),
      )
      expect(error.exitCode, header).toBe(ExitCode.Usage)
    }

    expect(calls()).toHaveLength(0)
  })

  it('sends a body without a secret-named field over plain http: only credentials are refused', async () => {
    mocked.agent.get('http://health.example.com').intercept({path: '/api/sign-in', method: 'POST'}).reply(200, {}, {headers: JSON_HEADERS})
    await client({service: 'health', baseUrl: 'http://health.example.com'}).raw('POST', '/api/sign-in', {
      auth: 'none',
      body: {email: 'a@example.com'},
    })
    expect(calls()).toHaveLength(1)
  })

  it('a host that only starts like loopback is not loopback', async () => {
    const error = await failure(
      client({...CHECKOUT, baseUrl: 'http://127.0.0.1.nip.io/checkout'}).call(getCheckout, {params: {checkoutId: 'c-1'}}),
    )
    expect(error.exitCode).toBe(ExitCode.Usage)
    expect(calls()).toHaveLength(0)
  })
})

describe('--dry-run', () => {
  it('prints a curl command with $OPSCTL_CHECKOUT_SECRET_KEY and no secret, and sends nothing', async () => {
    const error = await failure(
      client(CHECKOUT, {dryRun: true}).call(refundCheckout, {
        params: {checkoutId: 'c 1'},
        body: {reason: "buyer's request", amount: {value: '1.00', currency: 'PHP'}},
      }),
    )
    expect(error).toBeInstanceOf(DryRunRequest)
    const {curl, request} = error as DryRunRequest
    expect(curl).toContain(`curl -sS -X POST 'https://pay.example.com/checkout/v1/checkouts/c%201/refunds'`)
    expect(curl).toContain('-u "$OPSCTL_CHECKOUT_SECRET_KEY:"')
    expect(curl).toContain(`--data '{"reason":"buyer'\\''s request","amount":{"value":"1.00","currency":"PHP"}}'`)
    expect(curl).not.toContain(SECRET_KEY)
    expect(curl).not.toContain(basic(SECRET_KEY).slice(6))
    expect(JSON.stringify(request)).not.toContain(SECRET_KEY)
    expect(JSON.stringify(request)).not.toContain(basic(SECRET_KEY).slice(6))
    expect(calls()).toHaveLength(0)
  })

  it('refers to the public key and the health session by environment variable too', async () => {
    const pub = (await failure(client(CHECKOUT, {dryRun: true}).call(createCheckout, {body: checkoutBody}))) as DryRunRequest
    expect(pub.curl).toContain('-u "$OPSCTL_CHECKOUT_PUBLIC_KEY:"')
    expect(pub.curl).not.toContain(PUBLIC_KEY)
    const health = (await failure(client(HEALTH, {dryRun: true}).call(getUser))) as DryRunRequest
    expect(health.curl).toContain('-H "cookie: connect.sid=$OPSCTL_HEALTH_SESSION"')
    expect(health.curl).toContain(`-H 'x-ph-api-version: 3.14.0'`)
    expect(health.curl).not.toContain(SESSION)
    expect(calls()).toHaveLength(0)
  })

  it('shows the headers that would be sent: the auth replaces a caller Authorization, secret header values are masked', async () => {
    const dry = (await failure(
      client(CHECKOUT, {dryRun: true}).raw('GET', '/v1/webhooks', {
        auth: 'secret',
        headers: {Authorization: 'Bearer tok-Uu12Ii34', Cookie: 'sid=ck-Oo56Pp78', 'X-Trace': 'abc'},
      }),
    )) as DryRunRequest
    expect(dry.curl).toContain('-u "$OPSCTL_CHECKOUT_SECRET_KEY:"')
    expect(dry.curl).not.toMatch(/authorization/i)
    expect(dry.curl).toContain(`-H 'cookie: sid=[REDACTED]'`)
    expect(dry.curl).toContain(`-H 'x-trace: abc'`)
    expect(dry.curl + JSON.stringify(dry.request)).not.toMatch(/tok-Uu12Ii34|ck-Oo56Pp78/)
  })

  it('sends one Authorization header, the profile key, whatever case the caller used', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/webhooks', method: 'GET'})
      .reply(200, [], {headers: JSON_HEADERS})
    await client().raw('GET', '/v1/webhooks', {auth: 'secret', headers: {Authorization: 'Bearer tok-Uu12Ii34'}})
    const sent = calls()[0].headers as Record<string, string>
    expect(Object.keys(sent).filter((k) => k.toLowerCase() === 'authorization')).toEqual(['authorization'])
    expect(sent.authorization).toBe(basic(SECRET_KEY))
  })

  it('still validates the body and the transport first (exit 2)', async () => {
    // @ts-expect-error: an empty body, as a user's file may hold
    const invalid = await failure(client(CHECKOUT, {dryRun: true}).call(createCheckout, {body: {}}))
    expect(invalid).toBeInstanceOf(UsageError)
    const plain = await failure(
      client({...CHECKOUT, baseUrl: 'http://pay.example.com'}, {dryRun: true}).call(getCheckout, {params: {checkoutId: 'x'}}),
    )
    expect(plain).toBeInstanceOf(UsageError)
  })

  it('masks a password in the body it shows', async () => {
    const dry = (await failure(
      client({...HEALTH, session: undefined}, {dryRun: true}).call(signIn, {body: {email: 'a@example.com', password: 'pw-Secret-123'}}),
    )) as DryRunRequest
    expect(dry.curl).not.toContain('pw-Secret-123')
    expect(dry.curl).toContain('a@example.com')
  })
})

describe('network errors', () => {
  it('a refused connection is exit 7 and the outcome is known (nothing was applied)', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), {code: 'ECONNREFUSED'}))
    const error = await failure(client().call(createCheckout, {body: checkoutBody}))
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.exitCode).toBe(ExitCode.Network)
    expect(error.outcomeUnknown).toBe(false)
  })

  it('a reset during a non-idempotent request is exit 7 with the outcome unknown', async () => {
    mocked.agent
      .get('https://pay.example.com')
      .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
      .replyWithError(Object.assign(new Error('other side closed'), {code: 'UND_ERR_SOCKET'}))
    const error = await failure(client().call(createCheckout, {body: checkoutBody}))
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.exitCode).toBe(ExitCode.Network)
    expect(error.outcomeUnknown).toBe(true)
    expect(calls()).toHaveLength(1)
  })
})
