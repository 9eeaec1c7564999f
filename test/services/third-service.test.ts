/**
 * A third service, invented here: everything it needs is in this file, as it would be in its own
 * folders (src/services/<service>/, src/sandbox/<service>/), plus one registration line on each
 * side (src/services/registry.ts, src/sandbox/modules.ts; here the same calls, made by the test).
 * Its row, its sandbox handler, its auth scheme (a bearer token and a version header), its error
 * shape (`{error: {code, text, problems}}`), its refusal codes and its request-id header reach the
 * real client, the real transport and an in-process sandbox with no edit to shared code.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'

import {ApiError, CredentialsError, ExitCode, UsageError} from '../../src/errors.js'
import {ServiceClient} from '../../src/http/client.js'
import {defineService} from '../../src/http/operation.js'
import {registerServiceModule, type ServiceModule, type ServiceTarget} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {DocTable} from '../../src/sandbox/core/store.js'
import {sandboxModules} from '../../src/sandbox/modules.js'
import {type HandlersFor, SandboxError, sandboxModule} from '../../src/sandbox/types.js'

// ---- src/services/memos/operations.ts: the table, one row ----
const Memo = z.looseObject({id: z.string(), text: z.string()})
const memos = defineService({
  name: 'memos',
  operations: {
    addMemo: {method: 'POST', path: '/v2/memos', auth: 'secret', body: z.looseObject({text: z.string().min(1).max(40)}), response: Memo, successStatus: 201},
  },
})

// ---- src/services/memos/client-module.ts: how the HTTP layer reaches it ----
const VERSION = 'memos-2'
const memosClient: ServiceModule = {
  name: 'memos',
  auth(target, kind) {
    const headers: Record<string, string> = {'x-memos-version': VERSION}
    if (kind !== 'secret') return {headers, secrets: []}
    if (!target.secretKey) throw new CredentialsError('No memos token in the profile')
    headers.authorization = `Bearer ${target.secretKey}`
    return {headers, secrets: [target.secretKey]}
  },
  curlAuth: (_target, kind) => [`-H 'x-memos-version: ${VERSION}'`, ...(kind === 'secret' ? ['-H "authorization: Bearer $OPSCTL_MEMOS_TOKEN"'] : [])],
  secretEnv: ['OPSCTL_MEMOS_TOKEN'],
  requestIdHeader: 'x-memos-trace',
  errorFields(body) {
    const error = (body.error ?? {}) as {code?: string; problems?: {issue: string; path: string}[]; text?: string}
    return {code: error.code, message: error.text, fieldErrors: (error.problems ?? []).map((p) => ({field: p.path, description: p.issue}))}
  },
  // a full memo book is a business rule saying no, even though it comes as a 403
  refusalCodes: new Set(['BOOK_FULL']),
}

// ---- src/sandbox/memos/: its handler, its auth check, its error shape ----
const TOKEN = 'memo-token-7f3a9c'
const handlers: HandlersFor<typeof memos> = {
  addMemo(req, ctx) {
    if (req.body.text === 'one too many') throw new SandboxError(403, 'BOOK_FULL', 'The memo book is full')
    const memo = {id: ctx.id('memo'), text: req.body.text}
    ;(ctx.state.memos as unknown as DocTable<typeof memo>).set(memo.id, memo)
    return memo
  },
}
const memosSandbox = sandboxModule({
  service: memos,
  prefix: '/memos',
  handlers,
  openState: (store) => Object.assign(new DocTable(store, 'memos.memos'), {dump: () => ({}), load() {}, reset() {}}),
  authenticate(op, request) {
    if (request.headers['x-memos-version'] !== VERSION) throw new SandboxError(400, 'VERSION', 'x-memos-version is required')
    if (op.auth === 'secret' && request.headers.authorization !== `Bearer ${TOKEN}`) throw new SandboxError(401, 'TOKEN', 'Unknown token')
    return {}
  },
  errors: {
    body: (error) => ({error: {code: error.code, text: error.message, problems: error.fields.map((f) => ({path: f.field, issue: f.description}))}}),
    codeForStatus: (status) => `MEMOS_${status}`,
  },
  answerHeaders: (request) => ({'x-memos-trace': request.id}),
})

// ---- the one registration line on each side ----
registerServiceModule(memosClient)
const modules = [...sandboxModules, memosSandbox]

let sandbox: RunningSandbox
let target: ServiceTarget
const client = (t: Partial<ServiceTarget> = {}) => new ServiceClient({target: {...target, ...t}})
const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('it should fail'), (error: Error) => error)

beforeAll(async () => {
  sandbox = await createSandbox({port: 0, modules})
  target = {service: 'memos', baseUrl: `${sandbox.origin}/memos`, secretKey: TOKEN}
})
afterAll(() => sandbox.close())

describe('a third service, from its own module alone', () => {
  it('a call goes through the real client and transport to the sandbox, with its auth and headers, and comes back typed', async () => {
    const answer = await client().call(memos.operations.addMemo, {body: {text: 'buy inhaler refills'}})
    expect(answer.status).toBe(201)
    expect(answer.data).toMatchObject({id: expect.stringMatching(/^memo_/), text: 'buy inhaler refills'})
    expect(answer.requestId).toMatch(/^[\da-f-]{36}$/)
  })

  it('a wrong token is refused by its sandbox module: exit 3, its message read from its own error shape', async () => {
    const error = (await failure(client({secretKey: 'not-the-token'}).call(memos.operations.addMemo, {body: {text: 'x'}}))) as ApiError
    expect(error).toBeInstanceOf(ApiError)
    expect([error.status, error.exitCode, error.code, error.serverMessage]).toEqual([401, ExitCode.Auth, 'TOKEN', 'Unknown token'])
    expect(error.requestId).toMatch(/^[\da-f-]{36}$/)
    expect(JSON.stringify(error.toJSON())).not.toContain('not-the-token')
  })

  it('no token in the profile: exit 3 before anything is sent', async () => {
    const error = await failure(client({secretKey: undefined}).call(memos.operations.addMemo, {body: {text: 'x'}}))
    expect(error).toBeInstanceOf(CredentialsError)
  })

  it('a body its row refuses is exit 2 in the client, nothing sent; the sandbox refuses it too, naming the field in its shape', async () => {
    expect(await failure(client().call(memos.operations.addMemo, {body: {text: ''}}))).toBeInstanceOf(UsageError)
    const raw = await failure(client().raw('POST', '/v2/memos', {auth: 'secret', body: {text: 'x'.repeat(41)}}))
    expect(raw).toBeInstanceOf(ApiError)
    const error = raw as ApiError
    expect([error.status, error.code, error.exitCode]).toEqual([400, 'MEMOS_400', ExitCode.Refused])
    expect(error.fieldErrors).toEqual([{field: 'text', description: expect.stringContaining('40')}])
  })

  it('its refusal codes make a 403 a business-rule refusal (exit 5), not an auth failure', async () => {
    const error = (await failure(client().call(memos.operations.addMemo, {body: {text: 'one too many'}}))) as ApiError
    expect([error.status, error.code, error.exitCode, error.serverMessage]).toEqual([403, 'BOOK_FULL', ExitCode.Refused, 'The memo book is full'])
  })

  it('the core answers in its shape too: a route it does not have', async () => {
    const answer = await fetch(`${sandbox.origin}/memos/v2/nothing`)
    expect(answer.status).toBe(404)
    expect(answer.headers.get('x-memos-trace')).toMatch(/^[\da-f-]{36}$/)
    expect(await answer.json()).toEqual({error: {code: 'MEMOS_404', text: 'No such endpoint: GET /memos/v2/nothing', problems: []}})
  })

  it('the other services are served as before beside it', async () => {
    const answer = await fetch(`${sandbox.origin}/checkout/v1/nothing`)
    expect(await answer.json()).toMatchObject({code: 'PY0404'})
  })
})
