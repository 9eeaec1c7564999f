/**
 * The control token between real processes: `sandbox start` writes it to a 0600 file of its config
 * folder and removes it when it stops; `sandbox clock` and `sandbox export` on the same machine
 * find it there with no step from the user; a user elsewhere passes it in OPSCTL_SANDBOX_TOKEN;
 * it never shows in a --verbose trace or a --dry-run; --public says what it exposes.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {describe, expect, it, onTestFinished} from 'vitest'

import {baseEnv, ROOT, runCli, startSandbox} from './harness.js'

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, {force: true, recursive: true}))
  return dir
}

describe('the sandbox control token (processes)', () => {
  it('sandbox clock and sandbox export find it in the runtime file (0600), which is gone once the sandbox stops', async () => {
    const configDir = tempDir('opsctl-token-')
    const sandbox = await startSandbox(['--clock', '2026-11-21T15:00:00Z'], {OPSCTL_CONFIG_DIR: configDir})
    onTestFinished(async () => {
      await sandbox.stop()
    })
    const tokenFile = join(configDir, 'sandboxes', `http-127.0.0.1-${new URL(sandbox.origin).port}.json`)
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600)
    expect(statSync(join(configDir, 'sandboxes')).mode & 0o777).toBe(0o700)

    const env = {OPSCTL_CONFIG_DIR: configDir, OPSCTL_HEALTH_URL: sandbox.healthUrl, OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl}
    const advanced = await runCli(['sandbox', 'clock', '--advance', '26h', '--json'], {env})
    expect(advanced.code, advanced.stderr).toBe(0)
    expect(JSON.parse(advanced.stdout).now.slice(0, 13)).toBe('2026-11-22T17')

    const file = join(configDir, 'state.json')
    const exported = await runCli(['sandbox', 'export', file, '--json'], {env})
    expect(exported.code, exported.stderr).toBe(0)
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toEqual(expect.any(Number))

    // the token never shows: not in a --verbose trace, not in a --dry-run's curl
    const traced = await runCli(['sandbox', 'clock', '--verbose', '--json'], {env})
    expect(traced.code, traced.stderr).toBe(0)
    expect(traced.stderr).toMatch(/authorization: Bearer \[REDACTED\]/i)
    const dry = await runCli(['sandbox', 'clock', '--advance', '1h', '--dry-run'], {env})
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain('authorization: Bearer $OPSCTL_SANDBOX_TOKEN')
    for (const out of [advanced, exported, traced, dry]) expect(out.stdout + out.stderr).not.toContain(sandbox.token)

    expect(await sandbox.stop('SIGTERM')).toBe(0)
    expect(existsSync(tokenFile)).toBe(false)
  })

  it('goes only to the origin the sandbox bound: a listener on 127.0.0.2 with the same port never sees it', async () => {
    const configDir = tempDir('opsctl-origin-')
    const sandbox = await startSandbox([], {OPSCTL_CONFIG_DIR: configDir})
    onTestFinished(async () => {
      await sandbox.stop()
    })
    const port = Number(new URL(sandbox.origin).port)
    const seen: string[] = []
    const impostor = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '(none)')
      res.writeHead(401, {'content-type': 'application/json'}).end('{"error":{"code":"unauthorized","message":"no"}}')
    })
    await new Promise<void>((resolve) => impostor.listen(port, '127.0.0.2', resolve))
    onTestFinished(() => new Promise<void>((resolve) => impostor.close(() => resolve())))

    const env = {OPSCTL_CONFIG_DIR: configDir}
    const elsewhere = await runCli(['sandbox', 'tenant', 'create', '--sandbox-url', `http://127.0.0.2:${port}`, '--json'], {env})
    expect(elsewhere.code).not.toBe(0)
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.join('\n')).not.toContain(sandbox.token)
    // the origin that wrote it still gets it
    const own = await runCli(['sandbox', 'tenant', 'create', '--sandbox-url', sandbox.origin, '--json'], {env})
    expect(own.code, own.stderr).toBe(0)
  })

  it('a user without the token is refused (exit 3, nothing changed) and told where it comes from', async () => {
    const sandbox = await startSandbox(['--clock', '2026-11-21T15:00:00Z'])
    onTestFinished(async () => {
      await sandbox.stop()
    })
    const elsewhere = tempDir('opsctl-elsewhere-')
    const result = await runCli(['sandbox', 'clock', '--advance', '3650d'], {
      env: {OPSCTL_CONFIG_DIR: elsewhere, OPSCTL_HEALTH_URL: sandbox.healthUrl, OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl},
    })
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('OPSCTL_SANDBOX_TOKEN')
    // the next step is about the token, not the profile's keys
    expect(result.stderr).toContain('Try this: Run it on the machine that started the sandbox')
    expect(result.stderr).not.toContain('profile show')
    expect((await sandbox.control('clock')).now.slice(0, 4)).toBe('2026')
  })

  it('--public warns on stderr what it exposes and where the token is, never the token; a shared token works from elsewhere', async () => {
    const configDir = tempDir('opsctl-public-')
    const shared = 'team-shared-sandbox-token-7f3a9c'
    // --public on a loopback address: the warning is the point, nothing is exposed beyond this machine
    const child = spawn(process.execPath, ['bin/run.js', 'sandbox', 'start', '--public', '--port', '0', '--json'], {
      cwd: ROOT,
      env: {...baseEnv(), OPSCTL_CONFIG_DIR: configDir, OPSCTL_SANDBOX_TOKEN: shared},
    })
    const exited = new Promise((r) => child.once('exit', r))
    onTestFinished(async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    })
    let stderr = ''
    const warned = new Promise<void>((resolve) => {
      child.stderr.on('data', (d) => {
        stderr += d
        if (stderr.includes('OPSCTL_SANDBOX_TOKEN')) resolve()
      })
    })
    const info = JSON.parse(await new Promise<string>((resolve) => createInterface({input: child.stdout}).once('line', resolve)))
    await warned
    expect(stderr).toMatch(/Warning: --public/)
    expect(stderr).toContain('both services (health, checkout) and the\n  hosted payment page')
    expect(stderr.split('\n').filter((line) => line.length > 80 && !line.includes('/sandboxes/'))).toEqual([])
    expect(stderr).toContain(join(configDir, 'sandboxes'))
    expect(stderr + JSON.stringify(info)).not.toContain(shared)

    const elsewhere = tempDir('opsctl-teammate-')
    const teammate = await runCli(['sandbox', 'clock', '--json'], {
      env: {OPSCTL_CONFIG_DIR: elsewhere, OPSCTL_HEALTH_URL: info.health.baseUrl, OPSCTL_SANDBOX_TOKEN: shared},
    })
    expect(teammate.code, teammate.stderr).toBe(0)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('no secret needs argv: --token-file and PGPASSWORD-style files work; a secret typed as a flag value is warned about in one line', async () => {
    const configDir = tempDir('opsctl-argv-')
    const token = 'token-from-a-file-7f3a9c2b1d'
    writeFileSync(join(configDir, 'token'), `${token}\n`, {mode: 0o600})
    const sandbox = await startSandbox(['--token-file', join(configDir, 'token')], {OPSCTL_CONFIG_DIR: configDir})
    onTestFinished(async () => {
      await sandbox.stop()
    })
    const elsewhere = tempDir('opsctl-argv-elsewhere-')
    const teammate = await runCli(['sandbox', 'clock', '--json'], {env: {OPSCTL_CONFIG_DIR: elsewhere, OPSCTL_HEALTH_URL: sandbox.healthUrl, OPSCTL_SANDBOX_TOKEN: token}})
    expect(teammate.code, teammate.stderr).toBe(0)

    // typed on the command line: warned (one line), never echoed; both fail here before listening (a short token, a closed port)
    const typed = await runCli(['sandbox', 'start', '--port', '0', '--token', 'short'], {env: {OPSCTL_CONFIG_DIR: configDir}, timeoutMs: 20_000})
    expect(typed.code).toBe(2)
    expect(typed.stderr.split('\n').filter((l) => l.startsWith('Warning:'))).toEqual([
      'Warning: --token on the command line is readable by every local user (ps) and lands in shell history; use OPSCTL_SANDBOX_TOKEN or --token-file',
    ])
    const password = 'db-pass-5e8d1c'
    const database = await runCli(['sandbox', 'start', '--port', '0', '--database', `postgres://u:${password}@127.0.0.1:1/db`], {env: {OPSCTL_CONFIG_DIR: configDir}, timeoutMs: 60_000})
    expect(database.code).not.toBe(0)
    expect(database.stderr).toContain("Warning: --database's password on the command line is readable by every local user (ps)")
    expect(database.stderr).not.toContain(password)
    writeFileSync(join(configDir, 'db-password'), `${password}\n`, {mode: 0o600})
    const fromFile = await runCli(['sandbox', 'start', '--port', '0', '--database', 'postgres://u@127.0.0.1:1/db', '--database-password-file', join(configDir, 'db-password')], {
      env: {OPSCTL_CONFIG_DIR: configDir},
      timeoutMs: 60_000,
    })
    expect(fromFile.code).not.toBe(0)
    expect(fromFile.stderr).not.toContain('Warning:')
    expect(fromFile.stderr).not.toContain(password)

    // the help's examples put no secret on the command line
    const help = await runCli(['sandbox', 'start', '--help'])
    expect(help.stdout).toContain('EXAMPLES')
    expect(help.stdout.split('EXAMPLES')[1]).not.toMatch(/--token ["$\w]|postgres:\/\/[^@\s]*:[^@\s]*@/)
  })
})
