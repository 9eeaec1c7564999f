import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it, onTestFinished} from 'vitest'

import Api from '../../src/commands/api.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {isolatedWithMockedServices, runCommand} from '../helpers/command.js'

const ORIGIN = 'http://127.0.0.1:4010'
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`
const JSON_HEADERS = {'content-type': 'application/json'}

const harness = isolatedWithMockedServices()

const calls = () => harness.services.agent.getCallHistory()?.calls() ?? []
const pool = () => harness.services.agent.get(ORIGIN)

function noSecrets(text: string) {
  for (const s of [
    SANDBOX_KEYS.secretKey,
    SANDBOX_KEYS.publicKey,
    basic(SANDBOX_KEYS.secretKey).slice(6),
    basic(SANDBOX_KEYS.publicKey).slice(6),
  ]) {
    expect(text).not.toContain(s)
  }
}

describe('api checkout', () => {
  it('GET with --param sends repeated keys with the secret key and prints the JSON body', async () => {
    pool()
      .intercept({path: '/checkout/v1/webhooks?name=CHECKOUT_SUCCESS&name=CHECKOUT_FAILURE&limit=5', method: 'GET'})
      .reply(200, [{id: 'w-1', name: 'CHECKOUT_SUCCESS'}], {headers: JSON_HEADERS})
    const r = await runCommand(Api, [
      'checkout',
      'GET',
      '/v1/webhooks',
      '-P',
      'name=CHECKOUT_SUCCESS',
      '--param',
      'name=CHECKOUT_FAILURE',
      '--param',
      'limit=5',
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([{id: 'w-1', name: 'CHECKOUT_SUCCESS'}])
    expect(calls()[0].headers?.authorization).toBe(basic(SANDBOX_KEYS.secretKey))
    noSecrets(r.stdout + r.stderr)
  })

  it('POST /v1/checkouts uses the public key by default; --key secret overrides it', async () => {
    pool()
      .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
      .reply(200, {checkoutId: 'c-1', redirectUrl: 'x'}, {headers: JSON_HEADERS})
      .times(2)
    const body = '{"requestReferenceNumber":"r-1","totalAmount":{"value":"1.00","currency":"PHP"}}'
    expect((await runCommand(Api, ['checkout', 'POST', '/v1/checkouts', '--data', body])).code).toBe(0)
    expect(calls()[0].headers?.authorization).toBe(basic(SANDBOX_KEYS.publicKey))
    expect(calls()[0].headers?.['content-type']).toBe('application/json')
    expect(JSON.parse(calls()[0].body as string)).toEqual(JSON.parse(body))
    expect((await runCommand(Api, ['checkout', 'post', '/v1/checkouts', '--data', body, '--key', 'secret'])).code).toBe(0)
    expect(calls()[1].headers?.authorization).toBe(basic(SANDBOX_KEYS.secretKey))
  })

  it('--data @file and --data - (stdin)', async () => {
    pool().intercept({path: '/checkout/v1/webhooks', method: 'POST'}).reply(200, {id: 'w-9'}, {headers: JSON_HEADERS}).times(2)
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-data-'))
    onTestFinished(() => rmSync(dir, {force: true, recursive: true}))
    const path = join(dir, 'hook.json')
    writeFileSync(path, '{"name":"CHECKOUT_SUCCESS","callbackUrl":"https://m.example.com/h"}')
    const fromFile = await runCommand(Api, ['checkout', 'POST', '/v1/webhooks', '--data', `@${path}`, '--json'])
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(JSON.parse(fromFile.stdout)).toEqual({id: 'w-9'})
    const fromStdin = await runCommand(Api, ['checkout', 'POST', '/v1/webhooks', '--data', '-'], {
      stdin: '{"name":"CHECKOUT_DROPOUT","callbackUrl":"https://m.example.com/d"}',
    })
    expect(fromStdin.code, fromStdin.stderr).toBe(0)
    expect(calls().map((c) => JSON.parse(c.body as string).name)).toEqual(['CHECKOUT_SUCCESS', 'CHECKOUT_DROPOUT'])
  })

  it('--header adds headers; a 2xx without a body prints the status', async () => {
    pool().intercept({path: '/checkout/v1/customizations', method: 'DELETE'}).reply(204, '')
    const r = await runCommand(Api, ['checkout', 'DELETE', '/v1/customizations', '-H', 'X-Trace: abc', '--header', 'idempotency-key: k1'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({status: 204})
    expect(calls()[0].headers).toMatchObject({'x-trace': 'abc', 'idempotency-key': 'k1'})
  })

  it('API errors: the body on stdout (as gh api prints it), one line with the server message and request id on stderr, and the exit code of the status', async () => {
    const cases: [number, object, number, string][] = [
      [
        400,
        {code: 'PY0001', message: 'Bad amount', parameters: [{field: 'totalAmount.value', description: 'invalid'}]},
        5,
        'Bad amount (totalAmount.value: invalid)',
      ],
      [431, {message: 'Request header fields too large'}, 5, 'Request header fields too large [HTTP 431'],
      [401, {error: 'Invalid key', code: 'K001', reference: 'ref-1'}, 3, 'Invalid key [HTTP 401, code K001, request id req-9]'],
      [404, {code: 'PY0044', message: 'No such checkout'}, 4, 'No such checkout'],
      [400, {code: 'PY0048', message: 'Void window closed'}, 5, 'Void window closed'],
      [500, {message: 'boom'}, 6, 'boom'],
    ]
    for (const [status, body, exit, text] of cases) {
      pool()
        .intercept({path: '/checkout/v1/checkouts/c-1', method: 'DELETE'})
        .reply(status, body, {headers: {...JSON_HEADERS, 'x-request-id': 'req-9'}})
      const r = await runCommand(Api, ['checkout', 'DELETE', '/v1/checkouts/c-1', '--data', '{"reason":"x"}'])
      expect(r.code, JSON.stringify(body)).toBe(exit)
      expect(JSON.parse(r.stdout)).toEqual(body)
      expect(r.stderr).toContain(`Error: ${text}`)
      noSecrets(r.stderr)
    }

    expect(calls()).toHaveLength(6)
  })

  it('--json failure: the body on stdout, {"error": ...} on stderr with status, code, request id and exit code', async () => {
    pool()
      .intercept({path: '/checkout/v1/checkouts/c-1', method: 'GET'})
      .reply(404, {code: 'PY0044', message: 'No such checkout'}, {headers: {...JSON_HEADERS, 'x-request-id': 'req-404'}})
    const r = await runCommand(Api, ['checkout', 'GET', '/v1/checkouts/c-1', '--json'])
    expect(r.code).toBe(4)
    expect(JSON.parse(r.stdout)).toEqual({code: 'PY0044', message: 'No such checkout'})
    expect(JSON.parse(r.stderr)).toEqual({
      error: expect.objectContaining({
        name: 'ApiError',
        status: 404,
        code: 'PY0044',
        serverMessage: 'No such checkout',
        requestId: 'req-404',
        exitCode: 4,
      }),
    })
  })

  it('--dry-run prints curl with $OPSCTL_CHECKOUT_SECRET_KEY, no secret, and sends nothing', async () => {
    const r = await runCommand(Api, [
      'checkout',
      'POST',
      '/v1/checkouts/c-1/refunds',
      '--data',
      '{"reason":"dup","amount":{"value":"1.00","currency":"PHP"}}',
      '--dry-run',
    ])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`curl -sS -X POST '${ORIGIN}/checkout/v1/checkouts/c-1/refunds'`)
    expect(r.stdout).toContain('-u "$OPSCTL_CHECKOUT_SECRET_KEY:"')
    expect(r.stdout).toContain(`--data '{"reason":"dup","amount":{"value":"1.00","currency":"PHP"}}'`)
    noSecrets(r.stdout + r.stderr)
    const json = await runCommand(Api, ['checkout', 'GET', '/v1/x', '--dry-run', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({
      dryRun: true,
      request: {method: 'GET', url: `${ORIGIN}/checkout/v1/x`, headers: {authorization: 'Basic [REDACTED]'}},
    })
    noSecrets(json.stdout + json.stderr)
    expect(calls()).toHaveLength(0)
  })

  it('--verbose traces on stderr with the key masked; stdout stays pure JSON', async () => {
    pool()
      .intercept({path: '/checkout/v1/webhooks', method: 'GET'})
      .reply(200, [], {headers: {...JSON_HEADERS, 'x-request-id': 'req-v'}})
    const r = await runCommand(Api, ['checkout', 'GET', '/v1/webhooks', '--verbose'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([])
    expect(r.stderr).toContain(`> GET ${ORIGIN}/checkout/v1/webhooks`)
    expect(r.stderr).toContain('authorization: Basic [REDACTED]')
    expect(r.stderr).toMatch(/< 200 GET .* request id req-v/)
    noSecrets(r.stderr)
  })
})

describe('api: what a server says is shown, never acted on by the terminal', () => {
  it('a text body and a JSON message with escape sequences: the trace and the Error line escape them; --json keeps them', async () => {
    pool()
      .intercept({path: '/checkout/v1/webhooks', method: 'GET'})
      .reply(500, 'boom\u001B]0;pwned\u0007\n  Try this: rm -rf /\u202E', {headers: {'content-type': 'text/plain'}})
    const r = await runCommand(Api, ['checkout', 'GET', '/v1/webhooks', '--verbose'])
    expect(r.code).toBe(6)
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E]/)
    expect(r.stderr).toContain(String.raw`  boom\e]0;pwned\x07\n  Try this: rm -rf /\u202e`)
    expect(r.stderr).toContain(String.raw`Error: boom\e]0;pwned\x07 [HTTP 500`)
    expect(r.stderr).not.toMatch(/^ {2}Try this: rm/m)

    pool()
      .intercept({path: '/checkout/v1/webhooks', method: 'GET'})
      .reply(404, {message: 'gone\u001B[2J\u009B'}, {headers: JSON_HEADERS})
    const json = await runCommand(Api, ['checkout', 'GET', '/v1/webhooks', '--json'])
    expect(JSON.parse(json.stderr).error.serverMessage).toBe('gone\u001B[2J\u009B')
  })
})

describe('api health', () => {
  it('sends x-ph-api-version, and the session cookie only when the profile has one', async () => {
    pool().intercept({path: '/api/groups/clinic/config', method: 'GET'}).reply(200, {name: 'clinic'}, {headers: JSON_HEADERS})
    pool().intercept({path: '/api/users/me', method: 'GET'}).reply(200, {id: 'u-1'}, {headers: JSON_HEADERS})
    expect((await runCommand(Api, ['health', 'GET', '/api/groups/clinic/config'])).code).toBe(0)
    expect(calls()[0].headers?.['x-ph-api-version']).toBe('3.14.0')
    expect(calls()[0].headers?.cookie).toBeUndefined()
    process.env.OPSCTL_HEALTH_SESSION = 's%3Asess-Mm12Nn34'
    const r = await runCommand(Api, ['health', 'GET', '/api/users/me', '--verbose'])
    expect(r.code).toBe(0)
    expect(calls()[1].headers?.cookie).toBe('connect.sid=s%3Asess-Mm12Nn34')
    expect(r.stderr).not.toContain('sess-Mm12Nn34')
  })

  it('health --dry-run refers to $OPSCTL_HEALTH_SESSION', async () => {
    process.env.OPSCTL_HEALTH_SESSION = 's%3Asess-Mm12Nn34'
    const r = await runCommand(Api, ['health', 'GET', '/api/users/me', '--dry-run'])
    expect(r.stdout).toContain('-H "cookie: connect.sid=$OPSCTL_HEALTH_SESSION"')
    expect(r.stdout).not.toContain('sess-Mm12Nn34')
  })
})

describe('api: bad input is exit 2 and nothing is sent', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown method', ['checkout', 'FETCH', '/v1/x'], /Unsupported method FETCH/],
    ['a path without /', ['checkout', 'GET', 'v1/x'], /must start with "\/"/],
    ['invalid JSON', ['checkout', 'POST', '/v1/x', '--data', '{nope'], /--data is not valid JSON/],
    ['a missing @file', ['checkout', 'POST', '/v1/x', '--data', '@/nonexistent/x.json'], /Cannot read \/nonexistent\/x\.json: ENOENT/],
    ['a bad --param', ['checkout', 'GET', '/v1/x', '--param', 'novalue'], /--param expects key=value/],
    ['a bad --header', ['checkout', 'GET', '/v1/x', '--header', 'nocolon'], /--header expects key:value/],
    ['an unknown service', ['billing', 'GET', '/v1/x'], /Expected billing to be one of: health, checkout/],
    ['an unknown flag', ['checkout', 'GET', '/v1/x', '--nope'], /Unknown flag --nope\./],
  ]
  for (const [what, argv, message] of cases) {
    it(what, async () => {
      const r = await runCommand(Api, argv)
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(message)
      expect(r.stderr).not.toMatch(/\n\s+at /)
      expect(calls()).toHaveLength(0)
    })
  }

  const bodyCases: [string, string[], RegExp, string?][] = [
    ['--data with --input', ['checkout', 'POST', '/v1/webhooks', '--data', '{}', '--input', 'x.json'], /--data and --input each give the request body/],
    ['--input with fields', ['checkout', 'POST', '/v1/webhooks', '--input', 'x.json', '-f', 'a=b'], /--input and -f\/-F each give the request body/],
    ['two readers of stdin', ['checkout', 'GET', '/v1/webhooks', '--input', '-', '-F', 'a=@-'], /--input - and -F key=@- both read stdin/, '{}'],
    ['a field given twice', ['checkout', 'POST', '/v1/webhooks', '-f', 'name=a', '-f', 'name=b'], /The field name is given twice/],
    ['a malformed key', ['checkout', 'POST', '/v1/webhooks', '-f', 'a[b=c'], /-f a\[b: a key is a name/],
    ['a nested key in a query', ['checkout', 'GET', '/v1/webhooks', '-f', 'a[b]=c'], /cannot go in a query/],
    ['a missing @file', ['checkout', 'POST', '/v1/webhooks', '-F', 'a=@/nonexistent/x'], /Cannot read \/nonexistent\/x: ENOENT/],
    ['--input that is not JSON', ['checkout', 'POST', '/v1/webhooks', '--input', '-'], /stdin is not valid JSON/, 'name=x'],
  ]
  for (const [what, argv, message, stdin] of bodyCases) {
    it(`-f/-F/--input: ${what}`, async () => {
      const r = await runCommand(Api, argv, stdin === undefined ? {} : {stdin})
      expect(r.code, r.stderr).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(message)
      expect(calls()).toHaveLength(0)
    })
  }

  it('--paginate on a path that is not a paged list', async () => {
    const r = await runCommand(Api, ['checkout', 'GET', '/v1/webhooks', '--paginate'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--paginate follows a paged list, and listWebhooks (GET /v1/webhooks) has no pages; nothing was sent')
    expect(calls()).toHaveLength(0)
  })

  it('a credential over plain http to a remote host', async () => {
    process.env.OPSCTL_CHECKOUT_URL = 'http://pay.example.com/checkout'
    const r = await runCommand(Api, ['checkout', 'GET', '/v1/webhooks'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Refusing to send credentials over plain HTTP to pay\.example\.com/)
    expect(calls()).toHaveLength(0)
  })
})

describe('api --paginate against a service that misbehaves', () => {
  it('a paging token given again stops the run with exit 6 instead of reading the same pages forever', async () => {
    process.env.OPSCTL_HEALTH_SESSION = 's%3Asess-Mm12Nn34'
    const page = (next: string) => ({events: [{id: `e-${next}`, date: '2026-01-01T00:00:00Z'}], paging: {next}})
    pool().intercept({path: '/api/users/me/events', method: 'GET'}).reply(200, page('t1'), {headers: JSON_HEADERS})
    pool().intercept({path: '/api/users/me/events?pagingToken=t1', method: 'GET'}).reply(200, page('t2'), {headers: JSON_HEADERS})
    pool().intercept({path: '/api/users/me/events?pagingToken=t2', method: 'GET'}).reply(200, page('t1'), {headers: JSON_HEADERS})
    const r = await runCommand(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '-o', 'ndjson'])
    expect(r.code).toBe(6)
    expect(r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line).paging.next)).toEqual(['t1', 't2', 't1'])
    expect(r.stderr).toContain('Error: The getEvents answer gave the paging token t1 again, after 3 pages')
    expect(calls()).toHaveLength(3)
  })

  it('a page that fails ends the run: the pages before it printed (ndjson), its body, and the exit code of its status', async () => {
    process.env.OPSCTL_HEALTH_SESSION = 's%3Asess-Mm12Nn34'
    pool()
      .intercept({path: '/api/users/me/events', method: 'GET'})
      .reply(200, {events: [{id: 'e-1'}], paging: {next: 't1'}}, {headers: JSON_HEADERS})
    pool()
      .intercept({path: '/api/users/me/events?pagingToken=t1', method: 'GET'})
      .reply(400, {code: 'BAD_TOKEN', message: 'Unknown paging token'}, {headers: JSON_HEADERS})
    const r = await runCommand(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '-o', 'ndjson'])
    expect(r.code).toBe(5)
    expect(r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual([
      {events: [{id: 'e-1'}], paging: {next: 't1'}},
      {code: 'BAD_TOKEN', message: 'Unknown paging token'},
    ])
    expect(r.stderr).toContain('Error: Unknown paging token')
  })

  it('-i masks every header that carries a credential or a challenge for one, keeping the scheme', async () => {
    const head = {
      'content-type': 'application/json',
      authorization: 'Bearer tok-AUTHZ-123456',
      'proxy-authorization': 'Basic cHJveHk6cHJveHktcGFzcy0xMjM=',
      cookie: 'sid=COOKIE-VALUE-123456',
      'set-cookie': 'sid=SETCOOKIE-VALUE-123456; Path=/',
      'x-api-key': 'APIKEY-VALUE-123456',
      'proxy-authenticate': 'Basic realm="PROXY-REALM-123456"',
      'www-authenticate': 'Bearer realm="api", error="invalid_token", error_description="WWWAUTH-123456"',
      'x-auth-token': 'XAUTH-TOKEN-123456',
      'x-request-id': 'req-visible-1',
    }
    pool().intercept({path: '/checkout/v1/webhooks', method: 'GET'}).reply(200, [], {headers: head})
    const r = await runCommand(Api, ['checkout', 'GET', '/v1/webhooks', '-i'])
    expect(r.code, r.stderr).toBe(0)
    for (const secret of ['AUTHZ', 'cHJveHk6', 'COOKIE-VALUE', 'SETCOOKIE-VALUE', 'APIKEY-VALUE', 'PROXY-REALM', 'WWWAUTH', 'XAUTH-TOKEN']) expect(r.stdout).not.toContain(secret)
    const lines = r.stdout.split('\n')
    expect(lines).toEqual(
      expect.arrayContaining([
        'authorization: Bearer [REDACTED]',
        'proxy-authorization: Basic [REDACTED]',
        'cookie: sid=[REDACTED]',
        'set-cookie: sid=[REDACTED]; Path=/',
        'x-api-key: [REDACTED]',
        'proxy-authenticate: Basic [REDACTED]',
        'www-authenticate: Bearer [REDACTED]',
        'x-auth-token: [REDACTED]',
        'x-request-id: req-visible-1',
      ]),
    )
  })

  it("-i with --paginate: each page's head once, before its line", async () => {
    process.env.OPSCTL_HEALTH_SESSION = 's%3Asess-Mm12Nn34'
    pool()
      .intercept({path: '/api/users/me/events', method: 'GET'})
      .reply(200, {events: [{id: 'e-1'}], paging: {next: 't1'}}, {headers: JSON_HEADERS})
    pool().intercept({path: '/api/users/me/events?pagingToken=t1', method: 'GET'}).reply(500, {message: 'down'}, {headers: JSON_HEADERS})
    const r = await runCommand(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '-o', 'ndjson', '-i'], {env: {}})
    expect(r.code).toBe(6)
    expect(r.stdout.match(/^HTTP\/1\.1 .*$/gm)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 500 Internal Server Error'])
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('{"message":"down"}')
  })

  it("--dry-run --paginate prints the first page's request with the path's query, sends nothing; --max-pages needs --paginate", async () => {
    const r = await runCommand(Api, ['health', 'GET', '/api/users/me/events?symptoms=cough', '--paginate', '--dry-run'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`curl -sS -X GET '${ORIGIN}/api/users/me/events?symptoms=cough'`)
    const alone = await runCommand(Api, ['checkout', 'GET', '/v1/webhooks', '--max-pages', '3'])
    expect(alone.code).toBe(2)
    expect(alone.stderr).toContain('--paginate')
    expect(calls()).toHaveLength(0)
  })
})
