/**
 * The config folder under real processes: concurrent writers of profiles.json, a writer killed
 * while holding the lock, and the modes of what is created under `umask 000`. Needs `npm run build`.
 */
import {spawn} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync} from 'node:fs'
import {createServer} from 'node:http'
import {type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LOCK_WAIT_MS, STALE_LOCK_MS} from '../../src/profiles/lock.js'
import {ROOT, runCli, type RunOptions} from '../e2e/harness.js'

let configDir: string
const profilesFile = () => join(configDir, 'profiles.json')
const profileNames = () => Object.keys(JSON.parse(readFileSync(profilesFile(), 'utf8')).profiles).sort()
const mode = (path: string) => statSync(path).mode & 0o777
const run = (argv: string[], options: RunOptions = {}) =>
  runCli(argv, {...options, env: {OPSCTL_CONFIG_DIR: configDir, ...options.env}})

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'opsctl-folder-'))
})

afterEach(() => {
  rmSync(configDir, {force: true, recursive: true})
})

describe('profiles.json with several writers', () => {
  it('20 profile add processes at once: all exit 0 and all 20 profiles are there afterwards', async () => {
    const names = Array.from({length: 20}, (_, i) => `p${String(i).padStart(2, '0')}`)
    const started = performance.now()
    const results = await Promise.all(names.map((name) => run(['profile', 'add', name, '--env', 'sandbox'])))
    const seconds = (performance.now() - started) / 1000
    for (const [i, r] of results.entries()) expect(r.code, `${names[i]}: ${r.stderr}`).toBe(0)
    expect(profileNames()).toEqual([...names, 'sandbox'])
    // no lock folder or temporary file left behind
    expect(readdirSync(configDir)).toEqual(['profiles.json'])
    process.stderr.write(`20 concurrent 'profile add': ${seconds.toFixed(1)} s\n`)
  })

  it('a lock left by a writer killed with SIGKILL is taken over once stale, without hanging', async () => {
    const holder = spawn(process.execPath, [join(ROOT, 'test/fixtures/lock-holder.mjs'), ROOT, profilesFile()], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise((resolve) => holder.once('exit', resolve))
    const [line] = await createInterface({input: holder.stdout!})[Symbol.asyncIterator]().next().then((r) => [r.value])
    expect(line).toBe('locked')
    holder.kill('SIGKILL')
    await exited
    const lockDir = `${profilesFile()}.lock`
    const lockedAt = statSync(lockDir).mtimeMs

    const started = performance.now()
    const r = await run(['profile', 'add', 'late', '--env', 'sandbox'])
    expect(r.code, r.stderr).toBe(0)
    // it waited for the lock to go stale, and no longer than a writer waits for a lock at all
    expect(Date.now() - lockedAt).toBeGreaterThanOrEqual(STALE_LOCK_MS)
    expect(performance.now() - started).toBeLessThan(LOCK_WAIT_MS)
    expect(profileNames()).toEqual(['late', 'sandbox'])
    expect(existsSync(lockDir)).toBe(false)
  })
})

describe('modes', () => {
  it('under umask 000, a new config folder (and its parent) is 0700 and profiles.json and audit.jsonl are 0600', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end('{"id":"w-1"}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const {port} = server.address() as AddressInfo
    const dir = join(configDir, 'home', 'opsctl')
    try {
      const r = await runCli(['webhook', 'delete', 'w-1', '--yes'], {
        env: {OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`, OPSCTL_CONFIG_DIR: dir},
        umask: '000',
      })
      expect(r.code, r.stderr).toBe(0)
    } finally {
      server.close()
    }

    expect(mode(join(configDir, 'home'))).toBe(0o700)
    expect(mode(dir)).toBe(0o700)
    expect(readdirSync(dir).sort()).toEqual(['audit.jsonl', 'profiles.json'])
    expect(mode(join(dir, 'profiles.json'))).toBe(0o600)
    expect(mode(join(dir, 'audit.jsonl'))).toBe(0o600)
  })
})

describe('the sandboxes folder of the control tokens', () => {
  // Were sandbox start to accept the folder it would serve until killed: the bound makes that a failure, not a hang.
  const start = (env: Record<string, string> = {}) => runCli(['sandbox', 'start', '--port', '0'], {env: {OPSCTL_CONFIG_DIR: configDir, ...env}, timeoutMs: 20_000})

  it('a symbolic link in its place is refused (exit 2, why), and its target is neither chmod-ed nor written', async () => {
    const target = join(configDir, 'elsewhere')
    mkdirSync(target)
    chmodSync(target, 0o755)
    symlinkSync(target, join(configDir, 'sandboxes'))
    const r = await start()
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(`${join(configDir, 'sandboxes')} is a symbolic link`)
    expect(mode(target)).toBe(0o755)
    expect(readdirSync(target)).toEqual([])
  })

  // Only root can give a folder to another user; elsewhere this case cannot be set up.
  it.runIf(process.getuid?.() === 0)('a folder owned by another user is refused (exit 2, why), and left as it was', async () => {
    const folder = join(configDir, 'sandboxes')
    mkdirSync(folder)
    chmodSync(folder, 0o777)
    chownSync(folder, 65_534, 65_534)
    const r = await start()
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(`${folder} is owned by another user (uid 65534)`)
    expect(mode(folder)).toBe(0o777)
    expect(readdirSync(folder)).toEqual([])
  })
})
