import {describe, expect, it} from 'vitest'

import {ExitCode, exitCodeForStatus, UsageError} from '../../../src/errors.js'
import {parseErrorBody} from '../../../src/http/error-body.js'
import {prepareRequest} from '../../../src/http/prepare.js'
import {maskSecret, redactBody, redactHeaders, redactUrl, scrubSecrets} from '../../../src/http/redact.js'
import {retryWait} from '../../../src/http/retry.js'
import {authFor} from '../../../src/http/services.js'
import {buildUrl, expandPath, isLoopback} from '../../../src/http/url.js'
import {healthClientModule} from '../../../src/services/health/client-module.js'

describe('buildUrl / expandPath', () => {
  it('joins base path and path, with or without slashes', () => {
    expect(buildUrl('https://host/checkout', '/v1/checkouts').href).toBe('https://host/checkout/v1/checkouts')
    expect(buildUrl('https://host/checkout/', '/v1/checkouts').href).toBe('https://host/checkout/v1/checkouts')
    expect(buildUrl('https://host', 'api/users/me').href).toBe('https://host/api/users/me')
    expect(buildUrl('https://host:8443/a/b', '/c').href).toBe('https://host:8443/a/b/c')
  })

  it('an invalid base URL is a usage error that says how to fix the profile', () => {
    expect(() => buildUrl('not a url', '/x')).toThrow(/Invalid base URL: not a url/)
  })

  it('refuses dot segments in any encoding: the URL would leave the base path', () => {
    const base = 'https://host/r/ok/tenantA/checkout'
    for (const path of [
      '/../../tenantB/v1/webhooks',
      '/%2e%2e/tenantB',
      '/%2E%2e/tenantB',
      '/.%2E/tenantB',
      '/%2e./tenantB',
      String.raw`/..\tenantB`,
      '/%2e%2e%5Ctenant',
      '/%2e%2e%2ftenantB',
      '/%252e%252e/tenantB',
      '/v1/./x',
      '/v1/%2e/x',
      '/..?a=b',
      '/.\t./tenantB',
      '/.%0A./tenantB',
      '/\uFF0E\uFF0E/tenantB',
    ]) {
      expect(() => buildUrl(base, path), path).toThrow(UsageError)
    }

    expect(buildUrl(base, '/v1/a..b/.c/%2e1?x=..').href).toBe('https://host/r/ok/tenantA/checkout/v1/a..b/.c/%2e1?x=..')
  })

  it('encodes each path parameter as one segment', () => {
    expect(expandPath('/api/users/{userId}/events/{eventId}', {userId: 'me', eventId: 'a b/c'})).toBe('/api/users/me/events/a%20b%2Fc')
    expect(expandPath('/api/groups/{idOrName}/config', {idOrName: 'Clinic ü'})).toBe('/api/groups/Clinic%20%C3%BC/config')
  })
})

describe('a credential goes only under its own base URL', () => {
  const target = {baseUrl: 'https://pay.example.com/r/ok/tenantA/checkout', secretKey: 'sk-scope-Canary-5', service: 'checkout' as const}
  const request = (url: string) => ({auth: authFor(target, 'secret'), idempotent: true, label: 'x', method: 'GET' as const, url: new URL(url)})

  it('under the base: the key is attached', () => {
    expect(prepareRequest(request('https://pay.example.com/r/ok/tenantA/checkout/v1/webhooks')).headers.authorization).toMatch(/^Basic /)
  })

  it('another tenant, a sibling path or another origin: refused with exit 2 before any header is built', () => {
    for (const url of [
      'https://pay.example.com/r/ok/tenantB/checkout/v1/webhooks',
      'https://pay.example.com/r/ok/tenantA/checkout-other/v1',
      'https://evil.example.com/r/ok/tenantA/checkout/v1/webhooks',
      'http://pay.example.com/r/ok/tenantA/checkout/v1/webhooks',
    ]) {
      expect(() => prepareRequest(request(url)), url).toThrow(expect.objectContaining({exitCode: ExitCode.Usage}))
    }
  })
})

describe('isLoopback', () => {
  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '[::1]']) expect(isLoopback(h), h).toBe(true)
    for (const h of ['10.0.0.1', 'example.com', '127.0.0.1.nip.io', 'localhost.example.com', '0.0.0.0'])
      expect(isLoopback(h), h).toBe(false)
  })
})

describe('redaction', () => {
  it('masks a secret enough to tell keys apart, never enough to use one', () => {
    expect(maskSecret('sk-sandbox-Hd5Fg2Jk8Lp3Qw7Er1Ty6Ui4')).toBe('sk-s…Ui4')
    expect(maskSecret('short')).toBe('****')
    expect(maskSecret(undefined)).toBe('')
  })

  it('redacts Authorization, Cookie and Set-Cookie values but keeps names and cookie attributes', () => {
    const out = redactHeaders({
      Authorization: 'Basic c2stdGVzdDo=',
      cookie: 'connect.sid=s%3Aabc.def; theme=dark',
      'set-cookie': ['connect.sid=s%3Anew; Path=/; HttpOnly', 'other=1; Max-Age=60'],
      'x-request-id': 'r-1',
    })
    expect(out.Authorization).toBe('Basic [REDACTED]')
    expect(out.cookie).toBe('connect.sid=[REDACTED]; theme=[REDACTED]')
    expect(out['set-cookie']).toBe('connect.sid=[REDACTED]; Path=/; HttpOnly, other=[REDACTED]; Max-Age=60')
    expect(out['x-request-id']).toBe('r-1')
  })

  it('redacts secret-looking body fields at any depth', () => {
    expect(
      redactBody({email: 'a@b.c', password: 'p', nested: [{secretKey: 's', cardNumber: '4111111111111111', cvc: '123', name: 'n'}]}),
    ).toEqual({
      email: 'a@b.c',
      password: '[REDACTED]',
      nested: [{secretKey: '[REDACTED]', cardNumber: '[REDACTED]', cvc: '[REDACTED]', name: 'n'}],
    })
  })

  it('redacts secret-looking query parameters and user info in URLs', () => {
    const out = redactUrl(new URL('https://u:pw@host/x?apiKey=k1&apiKey=k2&limit=5&token=t'))
    expect(out).toBe('https://REDACTED:REDACTED@host/x?limit=5&apiKey=%5BREDACTED%5D&apiKey=%5BREDACTED%5D&token=%5BREDACTED%5D')
    for (const s of ['k1', 'k2', 'pw', 'token=t']) expect(out).not.toContain(s)
  })

  it('scrubs known secrets from free text and ignores too-short ones', () => {
    expect(scrubSecrets('key sk-abc123 and sk-abc123', ['sk-abc123', 'ab', undefined])).toBe('key [REDACTED] and [REDACTED]')
  })
})

describe('parseErrorBody', () => {
  it('an HTML page without a title gives its first line of text', () => {
    const html =
      '<!doctype html><html><head><script>var x = 1</script></head><body>\n<h1>Service Unavailable</h1><p>Try later</p></body></html>'
    expect(parseErrorBody(undefined, html).message).toBe('Service Unavailable')
  })

  it('health errors may carry a code too; elements without a field are kept', () => {
    const parsed = parseErrorBody({code: 'E42', message: 'Bad', elements: [{id: 'required', field: 'email'}, {id: 'x'}]}, '', healthClientModule.errorFields)
    expect(parsed).toEqual({
      code: 'E42',
      message: 'Bad',
      fieldErrors: [
        {field: 'email', description: 'required'},
        {field: '?', description: 'x'},
      ],
      reference: undefined,
    })
  })

  it('a JSON body with no message gives no message (the caller says HTTP <status>)', () => {
    expect(parseErrorBody({}, '{}').message).toBeUndefined()
    expect(parseErrorBody(undefined, '   ').message).toBeUndefined()
  })
})

describe('exit codes by status', () => {
  it('follows the table of DESIGN.md', () => {
    expect(exitCodeForStatus(400)).toBe(ExitCode.Refused)
    expect(exitCodeForStatus(401)).toBe(ExitCode.Auth)
    expect(exitCodeForStatus(403)).toBe(ExitCode.Auth)
    expect(exitCodeForStatus(404)).toBe(ExitCode.NotFound)
    expect(exitCodeForStatus(409)).toBe(ExitCode.Refused)
    expect(exitCodeForStatus(422)).toBe(ExitCode.Refused)
    expect(exitCodeForStatus(429)).toBe(ExitCode.Server)
    expect(exitCodeForStatus(500)).toBe(ExitCode.Server)
    expect(exitCodeForStatus(503)).toBe(ExitCode.Server)
  })

  it('never answers 2 ("nothing was sent") for a status: the server was sent something', () => {
    for (let status = 400; status < 600; status++) expect(exitCodeForStatus(status), `HTTP ${status}`).not.toBe(ExitCode.Usage)
    expect([405, 413, 415, 431].map((s) => exitCodeForStatus(s))).toEqual([ExitCode.Refused, ExitCode.Refused, ExitCode.Refused, ExitCode.Refused])
    expect(exitCodeForStatus(408)).toBe(ExitCode.Network)
  })
})

describe('retryWait: the one retry policy', () => {
  const rules = {errorCodes: ['ECONNRESET'], maxRetries: 3, maxTimeoutMs: 1000, minTimeoutMs: 10, statusCodes: [503]}
  const far = () => Date.now() + 60_000

  it('retries a listed status or error code, gives up on others and when attempts run out', () => {
    expect(retryWait({status: 503}, 1, rules, far())).toBe(10)
    expect(retryWait({code: 'ECONNRESET'}, 1, rules, far())).toBe(10)
    expect(retryWait({status: 500}, 1, rules, far())).toBeUndefined()
    expect(retryWait({status: 200}, 1, rules, far())).toBeUndefined()
    expect(retryWait({code: 'timeout'}, 1, rules, far())).toBeUndefined()
    expect(retryWait({}, 1, rules, far())).toBeUndefined()
    expect(retryWait({status: 503}, 4, rules, far())).toBeUndefined()
  })

  it('backs off exponentially from the shortest wait, capped by the policy', () => {
    expect([1, 2, 3].map((n) => retryWait({status: 503}, n, {...rules, maxRetries: 10}, far()))).toEqual([10, 20, 40])
    expect(retryWait({status: 503}, 9, {...rules, maxRetries: 10}, far())).toBe(1000)
  })

  it('waits for Retry-After (seconds or HTTP date), capped by the policy', () => {
    expect(retryWait({retryAfter: '0.2', status: 503}, 1, rules, far())).toBe(200)
    expect(retryWait({retryAfter: new Date(Date.now() + 3_600_000).toUTCString(), status: 503}, 1, rules, far())).toBe(1000)
  })

  it('does not start a wait that would end after the deadline', () => {
    expect(retryWait({retryAfter: '1', status: 503}, 1, rules, Date.now() + 500)).toBeUndefined()
  })
})

describe('redaction keeps what a trace is read for', () => {
  it('masks credentials but not paging cursors', () => {
    expect(redactBody({pagingToken: 'page-2', sessionToken: 'abc123', paging: {next: 'n-1'}})).toEqual({
      paging: {next: 'n-1'},
      pagingToken: 'page-2',
      sessionToken: '[REDACTED]',
    })
  })
})
