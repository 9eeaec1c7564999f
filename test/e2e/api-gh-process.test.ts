/**
 * `opsctl api`'s gh-like flags as a user runs them: the built CLI as a process against a sandbox
 * process, where the exit code, stdin and what lands on stdout and stderr are the point.
 */
import {beforeAll, describe, expect, it} from 'vitest'

import {type Cli, type Sandbox, sandboxForFile} from './harness.js'

const PASSWORD = 'gh-process-Pass-4k8'
let cli: Cli
let sandbox: Sandbox
sandboxForFile([], (started, user) => {
  sandbox = started
  cli = user
})

beforeAll(async () => {
  const {id} = await cli.json(['users', 'create', '--type', 'patient', '--email', 'gh-process@example.com', '--given-name', 'G', '--family-name', 'P', '--password-stdin'], {input: PASSWORD})
  await sandbox.control('health/events', {count: 75, userId: id})
})

describe('opsctl api, as a process', () => {
  it('--paginate -o ndjson: one line a page, exit 0', async () => {
    const r = await cli.run(['api', 'health', 'GET', '/api/users/me/events', '--paginate', '-o', 'ndjson'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line).events.length)).toEqual([50, 25])
  })

  it('-F password=@- reads stdin; --input - sends stdin as the body; --silent prints nothing', async () => {
    const signIn = await cli.run(['api', 'health', 'POST', '/api/sign-in', '-f', 'email=gh-process@example.com', '-F', 'password=@-'], {input: PASSWORD})
    expect(signIn.code, signIn.stderr).toBe(0)
    expect(JSON.parse(signIn.stdout)).toMatchObject({email: 'gh-process@example.com'})
    expect(signIn.stdout + signIn.stderr).not.toContain(PASSWORD)

    const hook = await cli.run(['api', 'checkout', 'POST', '/v1/webhooks', '--input', '-', '--silent'], {
      input: '{"name":"CHECKOUT_SUCCESS","callbackUrl":"https://shop.example/process"}',
    })
    expect([hook.code, hook.stdout], hook.stderr).toEqual([0, ''])
    expect(await cli.json(['webhook', 'list'])).toMatchObject({webhooks: [{callbackUrl: 'https://shop.example/process'}]})
  })

  it('a 404 with -i: head and body on stdout, the error on stderr, exit 4; a bad field: exit 2', async () => {
    const r = await cli.run(['api', 'checkout', 'GET', '/v1/checkouts/chk_missing', '-i'])
    expect(r.code).toBe(4)
    expect(r.stdout).toMatch(/^HTTP\/1\.1 404 Not Found\n[\s\S]*\n\n\{\n/)
    expect(r.stderr).toMatch(/^Error: .*\[HTTP 404/)

    const bad = await cli.run(['api', 'checkout', 'POST', '/v1/webhooks', '-f', 'name=a', '-f', 'name=b'])
    expect([bad.code, bad.stdout]).toEqual([2, ''])
    expect(bad.stderr).toContain('The field name is given twice')
  })
})
