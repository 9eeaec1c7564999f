/**
 * `api --query` asks about the answer: an error answer comes out as itself, with its own exit code
 * and message, never a JMESPath type error or a "did you mean" found in the error body. Against a
 * sandbox running in this process.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import Api from '../../src/commands/api.js'
import {runCommand} from '../helpers/command.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'

describe('api --query on an error answer', () => {
  let sandbox: InProcessSandbox
  let user: {cleanup(): void}
  beforeAll(async () => {
    sandbox = await inProcessSandbox()
    user = sandbox.user()
  })
  afterAll(async () => {
    user?.cleanup()
    await sandbox?.close()
  })

  it('--paginate --query with an expired session is the 401: exit 3, "sign in again", not a type error', async () => {
    const r = await runCommand(Api, ['health', 'GET', '/api/users/me/events', '--paginate', '--query', 'length(events)'], {
      env: {OPSCTL_HEALTH_SESSION: 's%3Aexpired-session.sig'},
    })
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('sign in again')
    expect(r.stderr).not.toMatch(/Ask for less|invalid-type|length\(/)
    // the error body, as the service sent it
    expect(JSON.parse(r.stdout)).toMatchObject({code: 'SESSION_EXPIRED'})

    const once = await runCommand(Api, ['health', 'GET', '/api/users/me', '--query', 'length(caregiverOf)'], {
      env: {OPSCTL_HEALTH_SESSION: 's%3Aexpired-session.sig'},
    })
    expect(once.code, once.stderr).toBe(3)
    expect(once.stderr).not.toMatch(/Ask for less|invalid-type/)
  })

  it('a query that finds nothing in an error body suggests nothing from it: the 404 and its body, exit 4', async () => {
    const r = await runCommand(Api, ['checkout', 'GET', '/v1/checkouts/0b5e6b1e-0000-4000-8000-000000000000', '--query', 'status'])
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).not.toMatch(/did you mean|matched nothing|found nothing/i)
    const body = JSON.parse(r.stdout)
    expect(body).toEqual(expect.objectContaining({code: expect.any(String)}))
  })
})
