/**
 * `opsctl sandbox start` as a real process (it serves until a signal; its exit codes), and
 * `opsctl sandbox clock` in-process (test/helpers/command.ts) against the real sandbox in this process.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {afterAll, beforeAll, describe, expect, it, onTestFinished} from 'vitest'

import SandboxClock from '../../src/commands/sandbox/clock.js'
import SandboxReset from '../../src/commands/sandbox/reset.js'
import {isolate, runCommand, runJson} from '../helpers/command.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'
import {baseEnv, ROOT, runCli, startSandbox} from './harness.js'

describe('opsctl sandbox start (process)', () => {
  it('serves /__sandbox/health on a free port and stops cleanly with exit 0 on SIGINT', async () => {
    const sandbox = await startSandbox()
    expect(sandbox.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sandbox.checkoutUrl).toBe(`${sandbox.origin}/checkout`)
    const health = await sandbox.control('health')
    expect(health.ok).toBe(true)
    expect(await sandbox.stop('SIGINT')).toBe(0)
  })

  it('prints the origin, both base URLs and the test keys for people', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'opsctl-sandbox-'))
    onTestFinished(() => rmSync(configDir, {force: true, recursive: true}))
    const child = spawn(process.execPath, ['bin/run.js', 'sandbox', 'start', '--port', '0'], {cwd: ROOT, env: {...baseEnv(), OPSCTL_CONFIG_DIR: configDir}})
    const exited = new Promise((r) => child.once('exit', r))
    const lines: string[] = []
    const reader = createInterface({input: child.stdout})
    await new Promise<void>((resolve) => {
      reader.on('line', (line) => {
        lines.push(line)
        if (line.startsWith('Stop with')) resolve()
      })
    })
    const text = lines.join('\n')
    expect(text).toMatch(/Sandbox listening on http:\/\/127\.0\.0\.1:\d+/)
    expect(text).toMatch(/checkout base URL\s+http:\/\/127\.0\.0\.1:\d+\/checkout/)
    expect(text).toMatch(/secret key\s+sk-sandbox-/)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('refuses a non-loopback --host without --public (exit 2)', async () => {
    const result = await runCli(['sandbox', 'start', '--host', '0.0.0.0', '--port', '0'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0.*--public/)
  })

  it('refuses a bad --fail-rate and a bad --clock before starting (exit 2)', async () => {
    expect((await runCli(['sandbox', 'start', '--port', '0', '--fail-rate', '2'])).code).toBe(2)
    const badClock = await runCli(['sandbox', 'start', '--port', '0', '--clock', 'tomorrow'])
    expect(badClock.code).toBe(2)
    expect(badClock.stderr).toContain('--clock must be an ISO 8601 time')
    const farClock = await runCli(['sandbox', 'start', '--port', '0', '--clock', '9999-01-01T00:00:00Z'])
    expect(farClock.code).toBe(2)
    expect(farClock.stderr).toMatch(/Cannot start the sandbox: the clock must be within 10 years of the real time/)
  })
})

describe('opsctl sandbox clock', () => {
  let sandbox: InProcessSandbox
  let user: {cleanup(): void}
  beforeAll(async () => {
    sandbox = await inProcessSandbox({clock: '2026-11-21T15:00:00Z'})
    user = sandbox.user()
  })
  afterAll(async () => {
    user?.cleanup()
    await sandbox?.close()
  })

  it('shows, advances and sets the clock of the sandbox the profile points at', async () => {
    const shown = await runJson(SandboxClock, [])
    expect(shown.now.slice(0, 13)).toBe('2026-11-21T15')
    const advanced = await runJson(SandboxClock, ['--advance', '26h'])
    expect(advanced.now.slice(0, 13)).toBe('2026-11-22T17')
    const set = await runJson(SandboxClock, ['--set', '2027-01-01T00:00:00Z'])
    expect(set.now.slice(0, 10)).toBe('2027-01-01')
    expect((await sandbox.control('clock')).now.slice(0, 10)).toBe('2027-01-01')
  })

  it('refuses a --set before the clock\'s now (exit 2, naming the current time) and leaves the clock where it was', async () => {
    const before = (await sandbox.control('clock')).now
    const result = await runCommand(SandboxClock, ['--set', '2026-11-21T15:00:00Z'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`--set 2026-11-21T15:00:00Z is before the sandbox clock, now ${before.slice(0, 16)}`)
    expect(result.stderr).toContain('the clock moves forward only')
    const after = (await sandbox.control('clock')).now
    expect(Date.parse(after) - Date.parse(before)).toBeGreaterThanOrEqual(0)
    expect(Date.parse(after) - Date.parse(before)).toBeLessThan(60_000)
  })

  it('sandbox reset starts the tenant over at the real time: the only way its clock goes back', async () => {
    expect((await runCommand(SandboxReset, [], {stdin: ''})).code).toBe(2)
    expect(await runJson(SandboxReset, ['--yes'])).toEqual({reset: true})
    expect(Math.abs(Date.parse((await sandbox.control('clock')).now) - Date.now())).toBeLessThan(60_000)
    await runJson(SandboxClock, ['--set', '2027-01-01T00:00:00Z'])
  })

  it('refuses a malformed duration without calling the sandbox (exit 2)', async () => {
    const result = await runCommand(SandboxClock, ['--advance', 'a while'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--advance must be a duration')
    expect((await sandbox.control('clock')).now.slice(0, 4)).toBe('2027')
  })

  it('says there is no sandbox when none answers (exit 7)', async () => {
    const nobody = isolate()
    try {
      const result = await runCommand(SandboxClock, [], {
        env: {OPSCTL_CHECKOUT_URL: 'http://127.0.0.1:9/checkout', OPSCTL_HEALTH_URL: 'http://127.0.0.1:9'},
      })
      expect(result.code).toBe(7)
      expect(result.stderr).toContain('No sandbox answering at http://127.0.0.1:9')
    } finally {
      nobody.cleanup()
    }
  })
})
