/** `opsctl api` in-process (test/helpers/command.ts) against the real sandbox in this process: auth is enforced. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import Api from '../../src/commands/api.js'
import UsersCreate from '../../src/commands/users/create.js'
import {runCommand as run} from '../helpers/command.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'

describe('opsctl api against the sandbox (auth enforced)', () => {
  let sandbox: InProcessSandbox
  beforeAll(async () => {
    sandbox = await inProcessSandbox()
  })
  afterAll(() => sandbox.close())

  it('checkout: 401 with a wrong key, 401 K004 with the public key on a secret route, 200 with the right key', async () => {
    const user = sandbox.user()
    try {
      const wrong = await run(Api, ['checkout', 'GET', '/v1/webhooks', '--json'], {
        env: {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-not-the-sandbox-key'},
      })
      expect(wrong.code).toBe(3)
      const error = JSON.parse(wrong.stderr).error
      expect(error).toMatchObject({code: 'K003', status: 401})
      expect(error.requestId).toMatch(/^[\da-f-]{36}$/)
      expect(wrong.stderr).not.toContain('sk-not-the-sandbox-key')

      const publicKey = await run(Api, ['checkout', 'GET', '/v1/webhooks', '--key', 'public'])
      expect(publicKey.code).toBe(3)
      expect(publicKey.stderr).toMatch(/needs the secret key.*HTTP 401, code K004, request id [\da-f-]{36}/)

      const right = await run(Api, ['checkout', 'GET', '/v1/webhooks'])
      expect(right.code, right.stderr).toBe(0)
      expect(JSON.parse(right.stdout)).toEqual([])
    } finally {
      user.cleanup()
    }
  })

  it('health: 401 with an unknown session, 200 with the one sign-up returned', async () => {
    const user = sandbox.user()
    try {
      const unknown = await run(Api, ['health', 'GET', '/api/users/me'], {env: {OPSCTL_HEALTH_SESSION: 'not-a-session'}})
      expect(unknown.code).toBe(3)
      expect(unknown.stderr).toMatch(/HTTP 401/)
      expect(unknown.stderr).toContain('opsctl users login')
      expect(unknown.stderr).not.toContain('not-a-session')

      const created = await run(
        UsersCreate,
        [
          '--type',
          'patient',
          '--email',
          'api-e2e@example.com',
          '--given-name',
          'Api',
          '--family-name',
          'Test',
          '--password-stdin',
          '--json',
        ],
        {
          stdin: 'a-long-password',
        },
      )
      expect(created.code, created.stderr).toBe(0)
      const me = await run(Api, ['health', 'GET', '/api/users/me'])
      expect(me.code, me.stderr).toBe(0)
      expect(JSON.parse(me.stdout)).toMatchObject({email: 'api-e2e@example.com', id: JSON.parse(created.stdout).id})
    } finally {
      user.cleanup()
    }
  })
})
