/**
 * Smoke's green run, as a person and a CI job see it (real processes): `npm start` prints its
 * progress on stderr and nothing else, and smoke against a tenant's profile leaves nothing it could
 * undo behind: no events, no plan medications, no webhooks, no customization, no extra tenant, and
 * the tenant's clock where it was (the next-day refund moves the clock of a tenant of its own).
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {controlHeaders} from '../helpers/control.js'
import {ROOT, runCli, type Sandbox, startSandbox} from './harness.js'

describe('a green smoke run (real processes)', () => {
  let configDir: string
  beforeAll(() => {
    configDir = mkdtempSync(join(tmpdir(), 'opsctl-smoke-clean-'))
  })
  afterAll(() => rmSync(configDir, {force: true, recursive: true}))

  it('npm start prints its progress on stderr and nothing else: no clean-up warning', async () => {
    const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string
    expect(start).toBe('node bin/run.js smoke --sandbox')
    const result = await runCli(['smoke', '--sandbox'], {env: {OPSCTL_CONFIG_DIR: configDir}})
    expect(result.code, result.stderr).toBe(0)
    const steps = result.stdout.trim().split('\n').length - 1
    expect(result.stderr).toMatch(
      new RegExp(
        `^Smoke: ${steps} steps against an embedded sandbox at http://127\\.0\\.0\\.1:\\d+\\n${steps} passed, 0 failed, 0 skipped\\n$`,
      ),
    )
  })

  describe('against a tenant of a running sandbox', () => {
    let sandbox: Sandbox
    beforeAll(async () => {
      sandbox = await startSandbox()
    })
    afterAll(() => sandbox?.stop())

    // a CI job given the sandbox's token and the origin it is for
    const run = (argv: string[]) => runCli(argv, {env: {OPSCTL_CONFIG_DIR: configDir, OPSCTL_SANDBOX_TOKEN: sandbox.token, OPSCTL_SANDBOX_URL: sandbox.origin}})
    // the tenant's whole state, from its own control route
    const tenantState = async (id: string) =>
      (await fetch(`${sandbox.origin}/t/${id}/__sandbox/state`, {headers: controlHeaders(sandbox.token)})).json()

    it('smoke -p <tenant profile> leaves nothing it could undo, and does not move the tenant clock', async () => {
      const created = await run(['sandbox', 'tenant', 'create', '--sandbox-url', sandbox.origin, '--save-profile', 'job-1', '--json'])
      expect(created.code, created.stderr).toBe(0)
      const tenant = JSON.parse(created.stdout).id as string
      const clock = async () => Date.parse(JSON.parse((await run(['sandbox', 'clock', '-p', 'job-1', '--json'])).stdout).now)
      const before = await clock()

      const smoke = await run(['smoke', '-p', 'job-1', '--reporter', 'json'])
      expect(smoke.code, smoke.stderr).toBe(0)
      const report = JSON.parse(smoke.stdout)
      expect(report.summary).toEqual({failed: 0, passed: report.results.length, skipped: 0})
      expect(smoke.stderr).not.toContain('warning')

      // the clock of the profile's tenant moved with real time only, not a day
      expect((await clock()) - before).toBeLessThan(3_600_000)
      // the next-day tenant is gone: only the profile's is listed
      const tenants = JSON.parse((await run(['sandbox', 'tenant', 'list', '--sandbox-url', sandbox.origin, '--json'])).stdout)
      expect((Array.isArray(tenants) ? tenants : tenants.tenants).map((t: {id: string}) => t.id)).toEqual([tenant])

      const state = await tenantState(tenant)
      expect(state.health.events).toEqual([])
      const users = state.health.users.map(([, user]: [string, {email: string; plan?: {medications: unknown[]}}]) => user)
      // its own user stays (the API has no user delete), with nothing on its plan
      expect(users.map((u: {email: string}) => u.email)).toEqual([expect.stringMatching(/^opsctl-smoke-[\da-f]+@example\.com$/)])
      expect(users.flatMap((u: {plan?: {medications: unknown[]}}) => u.plan?.medications ?? [])).toEqual([])
      expect(state.checkout.webhooks).toEqual([])
      expect(state.checkout.customization).toBeNull()
    })
  })
})
