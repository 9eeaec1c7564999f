/**
 * `opsctl api` as capable as `gh api`, in-process (test/helpers/command.ts) against the real sandbox
 * in this process: -f/-F fields, --input, -i, --silent, --paginate (merged and ndjson, --max-pages),
 * and a non-2xx answer's body with the exit code of its status.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import Api from '../../src/commands/api.js'
import UsersCreate from '../../src/commands/users/create.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {runCommand as run} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

const EVENTS = 120
const PASSWORD = 'api-gh-Pass-7q2w'
const env = sandboxPerFile()
let dir: string
let userId: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-api-gh-'))
  const created = await run(UsersCreate, ['--type', 'patient', '--email', 'api-gh@example.com', '--given-name', 'Api', '--family-name', 'Gh', '--password-stdin', '--json'], {stdin: PASSWORD})
  expect(created.code, created.stderr).toBe(0)
  userId = JSON.parse(created.stdout).id
  await env.sandbox.control('health/events', {count: EVENTS, userId})
})
afterAll(() => rmSync(dir, {force: true, recursive: true}))

const noKeys = (text: string) => {
  expect(text).not.toContain(SANDBOX_KEYS.secretKey)
  expect(text).not.toContain(SANDBOX_KEYS.publicKey)
}

describe('api --paginate', () => {
  it('follows pagingToken to the last page: one document, the last answer with every event in order', async () => {
    const single = JSON.parse((await run(Api, ['health', 'GET', '/api/users/me/events'])).stdout)
    expect(single.events).toHaveLength(50)
    expect(single.paging.next).toEqual(expect.any(String))

    const r = await run(Api, ['health', 'GET', '/api/users/me/events', '--paginate'])
    expect(r.code, r.stderr).toBe(0)
    const merged = JSON.parse(r.stdout)
    expect(merged.events).toHaveLength(EVENTS)
    expect(new Set(merged.events.map((e: {id: string}) => e.id)).size).toBe(EVENTS)
    expect(merged.events.slice(0, 50)).toEqual(single.events)
    expect(merged.paging.next).toBeUndefined()
  })

  it('-o ndjson: one line per page as the service answered it; --query applies to each page', async () => {
    const r = await run(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '-o', 'ndjson'])
    expect(r.code, r.stderr).toBe(0)
    const pages = r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(pages.map((p) => p.events.length)).toEqual([50, 50, 20])
    expect(pages.map((p) => p.paging.next === undefined)).toEqual([false, false, true])

    const counted = await run(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '-o', 'ndjson', '--query', 'length(events)'])
    expect(counted.stdout).toBe('50\n50\n20\n')
  })

  it('the query of the path, --param and GET fields go with every page; --max-pages stops and says the token to go on from', async () => {
    const all = JSON.parse((await run(Api, ['health', 'GET', '/api/users/me/events', '--paginate'])).stdout).events as {date: string}[]
    const middle = all[60].date
    const since = await run(Api, ['health', 'GET', `/api/users/me/events?startDate=${encodeURIComponent(middle)}`, '--paginate', '--query', 'length(events)'])
    expect(since.stdout.trim()).toBe(String(all.filter((e) => e.date >= middle).length))
    const byField = await run(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '-f', `startDate=${middle}`, '--query', 'length(events)'])
    expect(byField.stdout).toBe(since.stdout)

    const capped = await run(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '--max-pages', '2'])
    expect(capped.code, capped.stderr).toBe(0)
    const doc = JSON.parse(capped.stdout)
    expect(doc.events).toHaveLength(100)
    expect(capped.stderr).toContain(`Stopped after 2 pages (--max-pages); to go on from there: --param pagingToken=${doc.paging.next}`)
    for (const from of [['--param', `pagingToken=${doc.paging.next}`], ['-f', `pagingToken=${doc.paging.next}`], []]) {
      const path = from.length === 0 ? `/api/users/me/events?pagingToken=${encodeURIComponent(doc.paging.next)}` : '/api/users/me/events'
      const rest = JSON.parse((await run(Api, ['health', 'GET', path, '--paginate', ...from])).stdout)
      expect([...doc.events, ...rest.events], from.join(' ') || path).toEqual(all)
    }
  })

  it('a path that is not a paged list is refused: exit 2, the paged lists named', async () => {
    for (const argv of [
      ['checkout', 'GET', '/v1/webhooks', '--paginate'],
      ['health', 'POST', '/api/users/me/events', '--paginate', '-f', 'x=y'],
      ['health', 'GET', '/api/users/me/nothing', '--paginate'],
    ]) {
      const r = await run(Api, argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/--paginate follows a paged list, and .* nothing was sent/)
    }

    const events = await run(Api, ['health', 'GET', '/api/users/me/nothing', '--paginate'])
    expect(events.stderr).toContain('The paged lists of health: GET /api/users/{userId}/events')
  })
})

describe('api -f / -F / --input', () => {
  it('-f and -F build the JSON body, nested with [name] and lists with []', async () => {
    const r = await run(Api, [
      'checkout',
      'POST',
      '/v1/checkouts',
      '-f',
      'requestReferenceNumber=gh-1',
      '-f',
      'totalAmount[value]=12.50',
      '-f',
      'totalAmount[currency]=PHP',
      '-f',
      'items[][name]=Tea',
      '-f',
      'items[][quantity]=2',
      '-f',
      'items[][totalAmount][value]=12.50',
      '-f',
      'metadata[note]=07',
      '-F',
      'metadata[gift]=true',
      '-F',
      'metadata[count]=3',
      '-F',
      'metadata[coupon]=null',
    ])
    expect(r.code, r.stderr).toBe(0)
    const {checkoutId} = JSON.parse(r.stdout)
    const got = JSON.parse((await run(Api, ['checkout', 'GET', `/v1/checkouts/${checkoutId}`])).stdout)
    expect(got).toMatchObject({
      requestReferenceNumber: 'gh-1',
      totalAmount: {value: '12.50', currency: 'PHP'},
      items: [{name: 'Tea', quantity: '2', totalAmount: {value: '12.50'}}],
      metadata: {note: '07', gift: true, count: 3, coupon: null},
    })
  })

  it('-F key=@file and key=@- read text; --input FILE and --input - send a JSON body', async () => {
    const url = join(dir, 'url.txt')
    writeFileSync(url, 'https://shop.example/from-file')
    const fromFile = await run(Api, ['checkout', 'POST', '/v1/webhooks', '-f', 'name=CHECKOUT_SUCCESS', '-F', `callbackUrl=@${url}`])
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(JSON.parse(fromFile.stdout)).toMatchObject({callbackUrl: 'https://shop.example/from-file'})

    const signIn = await run(Api, ['health', 'POST', '/api/sign-in', '-f', 'email=api-gh@example.com', '-F', 'password=@-'], {stdin: PASSWORD})
    expect(signIn.code, signIn.stderr).toBe(0)
    expect(JSON.parse(signIn.stdout)).toMatchObject({id: userId})

    const hook = join(dir, 'hook.json')
    writeFileSync(hook, '{"name":"CHECKOUT_FAILURE","callbackUrl":"https://shop.example/input"}')
    const input = await run(Api, ['checkout', 'POST', '/v1/webhooks', '--input', hook])
    expect(input.code, input.stderr).toBe(0)
    const {id} = JSON.parse(input.stdout)
    const stdin = await run(Api, ['checkout', 'PUT', `/v1/webhooks/${id}`, '--input', '-'], {stdin: '{"name":"CHECKOUT_FAILURE","callbackUrl":"https://shop.example/stdin"}'})
    expect(stdin.code, stdin.stderr).toBe(0)
    expect(JSON.parse(stdin.stdout)).toMatchObject({id, callbackUrl: 'https://shop.example/stdin'})
  })

  it('on a GET the fields are the query: -f symptoms[]=... repeats the parameter', async () => {
    const r = await run(Api, ['health', 'GET', '/api/users/me/events', '-f', 'symptoms[]=cough', '-f', 'symptoms[]=wheeze', '--dry-run', '--json'])
    expect(JSON.parse(r.stdout).request.url).toBe(`${env.sandbox.healthUrl}/api/users/me/events?symptoms=cough&symptoms=wheeze`)
    const sent = await run(Api, ['health', 'GET', '/api/users/me/events', '-f', 'symptoms[]=cough', '--paginate', '--query', 'events[].symptoms'])
    expect(sent.code, sent.stderr).toBe(0)
    for (const symptoms of JSON.parse(sent.stdout) as string[][]) expect(symptoms).toContain('cough')
  })
})

describe('api -i / --silent / error answers', () => {
  it('-i prints the status line and headers before the body, the session cookie masked', async () => {
    const r = await run(Api, ['health', 'POST', '/api/sign-in', '-f', 'email=api-gh@example.com', '-F', 'password=@-', '-i'], {stdin: PASSWORD})
    expect(r.code, r.stderr).toBe(0)
    const [head, body] = r.stdout.split('\n\n')
    const lines = head.split('\n')
    expect(lines[0]).toBe('HTTP/1.1 200 OK')
    expect(lines).toContain('content-type: application/json; charset=utf-8')
    expect(lines).toContainEqual(expect.stringMatching(/^x-ph-api-request-id: [\da-f-]{36}$/))
    expect(lines).toContainEqual(expect.stringMatching(/^set-cookie: connect\.sid=\[REDACTED]; Path=\//))
    expect(JSON.parse(body)).toMatchObject({id: userId})
  })

  it('--silent prints no body; with -i only the head', async () => {
    const silent = await run(Api, ['checkout', 'GET', '/v1/webhooks', '--silent'])
    expect([silent.code, silent.stdout]).toEqual([0, ''])
    const head = await run(Api, ['checkout', 'GET', '/v1/webhooks', '--silent', '-i'])
    expect(head.code).toBe(0)
    expect(head.stdout).toMatch(/^HTTP\/1\.1 200 OK\n(?:[\w-]+: .*\n)+\n$/)
  })

  it('a non-2xx answer: its body on stdout (-i: its head first), the error on stderr, the exit code of its status', async () => {
    const missing = await run(Api, ['checkout', 'GET', '/v1/checkouts/chk_nope', '-i'])
    expect(missing.code).toBe(4)
    const [head, body] = missing.stdout.split('\n\n')
    expect(head.split('\n')[0]).toBe('HTTP/1.1 404 Not Found')
    expect(JSON.parse(body)).toMatchObject({code: expect.any(String), message: expect.stringContaining('chk_nope')})
    expect(missing.stderr).toMatch(/^Error: .*chk_nope.*\[HTTP 404/)

    const refused = await run(Api, ['checkout', 'POST', '/v1/webhooks', '-f', 'name=NOT_AN_EVENT', '-f', 'callbackUrl=https://shop.example/x'])
    expect(refused.code).toBe(5)
    expect(JSON.parse(refused.stdout)).toHaveProperty('message')

    const wrongKey = await run(Api, ['checkout', 'GET', '/v1/webhooks', '--json'], {env: {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-not-the-sandbox-key-1'}})
    expect(wrongKey.code).toBe(3)
    expect(JSON.parse(wrongKey.stdout)).toHaveProperty('code')
    expect(JSON.parse(wrongKey.stderr).error).toMatchObject({status: 401})
    expect(wrongKey.stdout + wrongKey.stderr).not.toContain('sk-not-the-sandbox-key-1')

    const silent = await run(Api, ['checkout', 'GET', '/v1/checkouts/chk_nope', '--silent'])
    expect([silent.code, silent.stdout]).toEqual([4, ''])
    expect(silent.stderr).toMatch(/HTTP 404/)
    noKeys(missing.stdout + missing.stderr + refused.stdout + refused.stderr)
  })
})
