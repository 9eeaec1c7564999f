/**
 * `opsctl sandbox diff` as a user runs it, built CLI against a sandbox process: a tenant with a
 * signed-in user answers as the embedded sandbox does (exit 0, every probe run), and --yes on a
 * production profile exits 2 before anything is sent.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, type Sandbox, startSandbox} from './harness.js'

describe('sandbox diff (real processes)', () => {
  let sandbox: Sandbox
  let configDir: string
  beforeAll(async () => {
    sandbox = await startSandbox()
    configDir = mkdtempSync(join(tmpdir(), 'opsctl-diff-e2e-'))
  })
  afterAll(async () => {
    await sandbox?.stop()
    rmSync(configDir, {force: true, recursive: true})
  })

  const run = (argv: string[], stdin?: string) =>
    runCli(argv, {env: {OPSCTL_CONFIG_DIR: configDir, OPSCTL_SANDBOX_TOKEN: sandbox.token, OPSCTL_SANDBOX_URL: sandbox.origin}, input: stdin})

  it('a tenant with a signed-in user against the embedded sandbox: every probe answers alike, exit 0', async () => {
    expect((await run(['sandbox', 'tenant', 'create', '--sandbox-url', sandbox.origin, '--save-profile', 'job'])).code).toBe(0)
    const signedUp = await run(
      ['users', 'create', '-p', 'job', '--type', 'patient', '--email', 'job@example.com', '--given-name', 'Opsctl', '--family-name', 'Diff', '--password-stdin'],
      'job-password-1\n',
    )
    expect(signedUp.code, signedUp.stderr).toBe(0)

    const diff = await run(['sandbox', 'diff', '--against', 'job', '--yes'])
    expect(diff.code, diff.stderr).toBe(0)
    expect(diff.stdout.trim()).toBe('probe\twhere\tours\ttheirs')
    expect(diff.stderr).toMatch(/^0 differences; 24 probes answered alike, 0 differently, 0 skipped, 0 failed on both sides$/m)
  })

  it('--yes against a production profile: exit 2, nothing sent', async () => {
    const added = await run(
      ['profile', 'add', 'live', '--env', 'production', '--health-url', 'https://health.example.com', '--checkout-url', 'https://pay.example.com', '--public-key', 'pk-live-1', '--secret-key-stdin'],
      'sk-live-1',
    )
    expect(added.code, added.stderr).toBe(0)
    const refused = await run(['sandbox', 'diff', '--against', 'live', '--yes', '--verbose'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('profile live is production')
    // --verbose traces every request: there was none
    expect(refused.stderr).not.toMatch(/example\.com/)
  })
})
