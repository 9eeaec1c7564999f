import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {cliFor, type Sandbox, startSandbox} from './harness.js'

describe('opsctl api against the sandbox (auth enforced)', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startSandbox()
  })
  afterAll(() => sandbox.stop())

  it('checkout: 401 with a wrong key, 401 K004 with the public key on a secret route, 200 with the right key', async () => {
    const cli = cliFor(sandbox)
    try {
      const wrong = await cli.run(['api', 'checkout', 'GET', '/v1/webhooks', '--json'], {
        env: {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-not-the-sandbox-key'},
      })
      expect(wrong.code).toBe(3)
      const error = JSON.parse(wrong.stderr).error
      expect(error).toMatchObject({code: 'K003', status: 401})
      expect(error.requestId).toMatch(/^[\da-f-]{36}$/)
      expect(wrong.stderr).not.toContain('sk-not-the-sandbox-key')

      const publicKey = await cli.run(['api', 'checkout', 'GET', '/v1/webhooks', '--key', 'public'])
      expect(publicKey.code).toBe(3)
      expect(publicKey.stderr).toMatch(/needs the secret key.*HTTP 401, code K004, request id [\da-f-]{36}/)

      const right = await cli.run(['api', 'checkout', 'GET', '/v1/webhooks'])
      expect(right.code, right.stderr).toBe(0)
      expect(JSON.parse(right.stdout)).toEqual([])
    } finally {
      cli.cleanup()
    }
  })

  it('health: 401 with an unknown session, 200 with the one sign-up returned', async () => {
    const cli = cliFor(sandbox)
    try {
      const unknown = await cli.run(['api', 'health', 'GET', '/api/users/me'], {env: {OPSCTL_HEALTH_SESSION: 'not-a-session'}})
      expect(unknown.code).toBe(3)
      expect(unknown.stderr).toMatch(/HTTP 401/)
      expect(unknown.stderr).toContain('opsctl users login')
      expect(unknown.stderr).not.toContain('not-a-session')

      const created = await cli.run(
        [
          'users',
          'create',
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
          input: 'a-long-password',
        },
      )
      expect(created.code, created.stderr).toBe(0)
      const me = await cli.run(['api', 'health', 'GET', '/api/users/me'])
      expect(me.code, me.stderr).toBe(0)
      expect(JSON.parse(me.stdout)).toMatchObject({email: 'api-e2e@example.com', id: JSON.parse(created.stdout).id})
    } finally {
      cli.cleanup()
    }
  })
})
