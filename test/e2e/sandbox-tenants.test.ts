/**
 * Tenants of a real sandbox process, driven by the built CLI: a CI job creates its own tenant with
 * a saved profile and runs smoke against it, while another tenant's clock and data stay as they were.
 */
import {mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, type Sandbox, startSandbox} from './harness.js'

describe('sandbox tenants (real processes)', () => {
  let sandbox: Sandbox
  let configDir: string
  beforeAll(async () => {
    sandbox = await startSandbox()
    configDir = mkdtempSync(join(tmpdir(), 'opsctl-tenants-e2e-'))
  })
  afterAll(async () => {
    await sandbox?.stop()
    rmSync(configDir, {force: true, recursive: true})
  })

  // the sandbox's token through the variables a shared sandbox's user sets (the token, and the origin it is for); no OPSCTL_*_URL of a service, so profiles decide
  const run = (argv: string[]) => runCli(argv, {env: {OPSCTL_CONFIG_DIR: configDir, OPSCTL_SANDBOX_TOKEN: sandbox.token, OPSCTL_SANDBOX_URL: sandbox.origin}})

  it('creates a tenant with --save-profile, and smoke -p passes against it alone', async () => {
    const created = await run(['sandbox', 'tenant', 'create', '--sandbox-url', sandbox.origin, '--save-profile', 'job-1', '--json'])
    expect(created.code, created.stderr).toBe(0)
    const tenant = JSON.parse(created.stdout)
    expect(tenant).toMatchObject({
      id: expect.stringMatching(/^tn_[\da-f]{16}$/),
      healthBaseUrl: `${sandbox.origin}/t/${tenant.id}`,
      checkoutBaseUrl: `${sandbox.origin}/t/${tenant.id}/checkout`,
      publicKey: expect.stringMatching(/^pk-/),
      secretKey: expect.stringMatching(/^sk-/),
      profile: 'job-1',
    })
    expect(statSync(join(configDir, 'profiles.json')).mode & 0o777).toBe(0o600)

    expect((await run(['sandbox', 'tenant', 'create', '--sandbox-url', sandbox.origin, '--save-profile', 'job-2'])).code).toBe(0)
    const otherClock = Date.parse(JSON.parse((await run(['sandbox', 'clock', '-p', 'job-2', '--json'])).stdout).now)

    const smoke = await run(['smoke', '-p', 'job-1'])
    expect(smoke.code, smoke.stderr).toBe(0)
    expect(smoke.stderr).toMatch(/\d+ passed, 0 failed, 0 skipped/)
    // smoke's next-day refund moved the clock of a tenant of its own; neither the other tenant's nor the default one's moved
    const afterOther = Date.parse(JSON.parse((await run(['sandbox', 'clock', '-p', 'job-2', '--json'])).stdout).now)
    expect(afterOther - otherClock).toBeLessThan(3_600_000)
    const exported = await run(['sandbox', 'export', '-p', 'job-2', join(configDir, 'job-2.json'), '--json'])
    expect(JSON.parse(exported.stdout)).toMatchObject({checkouts: 0, users: 0})
    const smokeData = await run(['sandbox', 'export', '-p', 'job-1', join(configDir, 'job-1.json'), '--json'])
    expect(JSON.parse(smokeData.stdout).checkouts).toBeGreaterThan(0)
    // and the default tenant (the sandbox's own URLs) holds nothing of it
    const state = await sandbox.control('state')
    expect(state.checkout.checkouts).toEqual([])

    // a scenario run with the tenant's profile moves that tenant's clock alone
    const scenario = join(configDir, 'clock.yaml')
    writeFileSync(scenario, 'steps:\n  - run: opsctl sandbox clock --advance 5h --json\n    expect: {json: {now: {exists: true}}}\n')
    const before = Date.parse(JSON.parse((await run(['sandbox', 'clock', '-p', 'job-1', '--json'])).stdout).now)
    const scenarioRun = await run(['scenario', 'run', '-p', 'job-1', scenario])
    expect(scenarioRun.code, scenarioRun.stderr).toBe(0)
    expect(Date.parse(JSON.parse((await run(['sandbox', 'clock', '-p', 'job-1', '--json'])).stdout).now) - before).toBeGreaterThan(4 * 3_600_000)
    expect(Date.parse(JSON.parse((await run(['sandbox', 'clock', '-p', 'job-2', '--json'])).stdout).now) - otherClock).toBeLessThan(3_600_000)

    // the keys are shown on create, in its document, and in no trace
    const verbose = await run(['sandbox', 'tenant', 'create', '--sandbox-url', sandbox.origin, '--verbose', '--json'])
    expect(verbose.code, verbose.stderr).toBe(0)
    const shown = JSON.parse(verbose.stdout)
    expect(verbose.stderr).toContain('POST')
    expect(verbose.stderr).not.toContain(shown.secretKey)
    expect(verbose.stderr).not.toContain(shown.publicKey)
  })
})
