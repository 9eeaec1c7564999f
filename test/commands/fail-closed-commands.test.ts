/**
 * No command prints an answer it could not read (issue 45): after a redirect (never followed), a
 * cut-off body or an HTML page, each command exits 6 with one error line and prints nothing on
 * stdout: no empty list, no empty document. `opsctl api` shows what arrived, and still fails.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import Api from '../../src/commands/api.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import EventsList from '../../src/commands/events/list.js'
import RefundList from '../../src/commands/refund/list.js'
import WebhookList from '../../src/commands/webhook/list.js'
import {isolate, runCommand, type Runnable} from '../helpers/command.js'
import {type Answer, hostile, type HostileService, hostileService, json} from '../helpers/hostile-service.js'

let env: ReturnType<typeof isolate>
let service: HostileService | undefined
let answer: Answer
beforeEach(async () => {
  env = isolate()
  // The signed-in user reads well (events list reads it for the time zone first); everything else answers `answer`.
  service = await hostileService(({path}) => (path === '/api/users/me' ? json({email: 'a@example.com', id: 'u-1', role: 'patient', timeZone: 'Asia/Manila'}) : answer))
})
afterEach(async () => {
  await service?.close()
  env.cleanup()
})

const REDIRECT = hostile('redirect-307', null, '')

function run(Cmd: Runnable, argv: string[]) {
  const origin = service!.origin
  return runCommand(Cmd, argv, {env: {OPSCTL_CHECKOUT_URL: `${origin}/checkout`, OPSCTL_HEALTH_SESSION: 's%3Asess-Aa11Bb22', OPSCTL_HEALTH_URL: origin}})
}

/** Exit 6, nothing on stdout, and one error line on stderr. */
function failsClosed(out: {code: number; stderr: string; stdout: string}, line: RegExp) {
  expect(out.code, out.stderr).toBe(6)
  expect(out.stdout).toBe('')
  const errors = out.stderr.split('\n').filter((l) => l.startsWith('Error:'))
  expect(errors).toHaveLength(1)
  expect(errors[0]).toMatch(line)
  expect(out.stderr).not.toMatch(/TypeError|Cannot destructure|as received/)
}

/** The same under --json: the error document on stderr, nothing on stdout. */
function failsClosedJson(out: {code: number; stderr: string; stdout: string}, operation: string) {
  expect(out.code, out.stderr).toBe(6)
  expect(out.stdout).toBe('')
  expect(JSON.parse(out.stderr).error).toMatchObject({exitCode: 6, name: 'UnreadableAnswerError', operation})
}

describe('after a 307 that is not followed', () => {
  const redirect = (op: string) =>
    new RegExp(`^Error: the ${op} answer could not be read: HTTP 307, no body, a redirect to https://elsewhere\\.example\\.com/v1/ \\(redirects are not followed\\); nothing was taken from it$`)

  it('checkout get --json prints nothing and exits 6', async () => {
    answer = REDIRECT
    failsClosedJson(await run(CheckoutGet, ['chk_1', '--json']), 'getCheckout')
    failsClosed(await run(CheckoutGet, ['chk_1']), redirect('getCheckout'))
  })

  it('events list --json prints no empty list', async () => {
    answer = REDIRECT
    failsClosedJson(await run(EventsList, ['me', '--json']), 'getEvents')
    failsClosed(await run(EventsList, ['me']), redirect('getEvents'))
  })

  it('webhook list prints no []', async () => {
    answer = REDIRECT
    failsClosedJson(await run(WebhookList, ['--json']), 'listWebhooks')
    failsClosed(await run(WebhookList, []), redirect('listWebhooks'))
  })

  it('checkout void says it could not read the checkout, sends nothing', async () => {
    answer = REDIRECT
    failsClosed(
      await run(CheckoutVoid, ['chk_1', '--reason', 'dup', '--yes']),
      /^Error: could not read checkout chk_1 \(HTTP 307, no body, a redirect to https:\/\/elsewhere\.example\.com\/v1\/ \(redirects are not followed\)\); nothing was sent$/,
    )
    expect(service!.writes()).toEqual([])
  })
})

describe('a body that is not the row\'s', () => {
  it('refund list: cut-off JSON, an HTML page, a list wrapped in an object', async () => {
    const refunds = [{id: 'rfd_1', status: 'SUCCESS'}]
    for (const shape of ['cut-off', 'html', 'wrapped'] as const) {
      answer = hostile(shape, refunds, 'id')
      failsClosed(await run(RefundList, ['chk_1']), /^Error: the listRefunds answer could not be read: HTTP 200, (application\/json|text\/html), /)
    }
  })

  it('events list: a page without its events list', async () => {
    answer = json({paging: {}})
    failsClosedJson(await run(EventsList, ['me', '--json']), 'getEvents')
    failsClosed(await run(EventsList, ['me']), /^Error: the getEvents answer could not be read: HTTP 200, application\/json, events: Invalid input: expected array, received undefined; nothing was taken from it$/)
  })
})

describe('opsctl api shows what arrived, and fails on what is not a success', () => {
  it('a redirect: its body as received on stdout, the error on stderr, exit 6', async () => {
    answer = {status: 302, headers: {'content-type': 'text/html', location: 'https://login.example.com/'}, body: '<html>moved</html>'}
    const out = await run(Api, ['checkout', 'GET', '/v1/webhooks'])
    expect(out.code).toBe(6)
    expect(out.stdout).toContain('<html>moved</html>')
    expect(out.stderr).toContain('Error: the GET /v1/webhooks answer could not be read: HTTP 302, text/html, a redirect to https://login.example.com/ (redirects are not followed)')
  })

  it('a 2xx that is not JSON where JSON was asked: shown as received, exit 6', async () => {
    answer = hostile('html', null, '')
    const out = await run(Api, ['checkout', 'GET', '/v1/webhooks'])
    expect(out.code).toBe(6)
    expect(out.stdout).toContain('<title>Sign in</title>')
    expect(out.stderr).toContain('HTTP 200, text/html, an HTML page where JSON is due')
  })

  it('a 2xx JSON body, or none, is a success', async () => {
    answer = json([{id: 'w-1'}])
    const listed = await run(Api, ['checkout', 'GET', '/v1/webhooks'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toEqual([{id: 'w-1'}])
    answer = {status: 204}
    const none = await run(Api, ['checkout', 'DELETE', '/v1/customizations'])
    expect(none.code, none.stderr).toBe(0)
  })

  it('--paginate: a page without its list is exit 6, not an empty page', async () => {
    answer = json({paging: {}})
    const out = await run(Api, ['health', 'GET', '/api/users/me/events', '--paginate'])
    expect(out.code, out.stderr).toBe(6)
    expect(out.stdout).toBe('')
    expect(out.stderr).toContain('Error: the getEvents answer could not be read: HTTP 200, application/json, no list of events (found none); nothing was taken from it')
  })

  it('text asked for with -H accept is text received: exit 0', async () => {
    answer = {status: 200, headers: {'content-type': 'text/plain'}, body: 'ok'}
    const out = await run(Api, ['checkout', 'GET', '/v1/webhooks', '-H', 'accept: text/plain'])
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain('ok')
  })
})
