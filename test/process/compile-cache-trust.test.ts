/**
 * What someone who can reach the compile cache's folder (src/startup/compile-cache.ts) can do to
 * the built CLI, as real processes: nothing but cost it speed. Planted code never runs,
 * a FIFO or a device never hangs or bloats a command, a symlink is never written through and a
 * symlinked folder never gets its target emptied. Each test has its own temporary cache folder.
 */
import {execFileSync, spawn} from 'node:child_process'
import {chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Script} from 'node:vm'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {baseEnv, BIN, ROOT, runCli, type RunResult} from '../e2e/harness.js'

const root = process.getuid?.() === 0
const ARGV = ['profile', 'list', '--json']
let dir: string
/** A copy of the built CLI whose `file` of dist/ is another source of the same length, which prints PLANTED. */
function plantedCopyOf(file: string[]): string {
  const copy = mkdtempSync(join(tmpdir(), 'opsctl-planted-'))
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(copy, part), {recursive: true})
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  const real = readFileSync(join(ROOT, 'dist', ...file), 'utf8')
  const planted = `process.stdout.write('PLANTED\\n'); process.exit(0) /*`
  writeFileSync(join(copy, 'dist', ...file), `${planted}${'*'.repeat(real.length - planted.length - 2)}*/`)
  expect(readFileSync(join(copy, 'dist', ...file), 'utf8')).toHaveLength(real.length)
  return copy
}

/** dist/startup/direct-start.js, which every command loads (each file from a cache entry of its own). */
let plantedCopy: string
/** The command's own file, which loads from the command's pack (src/startup/command-pack.ts). */
let plantedCommandCopy: string

beforeAll(() => {
  plantedCopy = plantedCopyOf(['startup', 'direct-start.js'])
  plantedCommandCopy = plantedCopyOf(['commands', 'profile', 'list.js'])
})

afterAll(() => {
  rmSync(plantedCopy, {force: true, recursive: true})
  rmSync(plantedCommandCopy, {force: true, recursive: true})
})

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-cache-trust-'))
})

afterEach(() => {
  // Folders handed to another user, or made read-only, must still go.
  execFileSync('chmod', ['-R', 'u+rwx', dir])
  rmSync(dir, {force: true, recursive: true})
})

const cacheDir = () => join(dir, 'cache')
const env = (cache = cacheDir()) => ({OPSCTL_CACHE_DIR: cache, OPSCTL_CONFIG_DIR: join(dir, 'config')})
const buildFolder = (cache = cacheDir()) => join(cache, 'compile-cache', `opsctl-${readFileSync(join(ROOT, 'dist', 'build-id'), 'utf8').trim()}-node${process.version}-${process.arch}`)
const plantedEntry = (cache = cacheDir()) => join(buildFolder(cache), 'startup~direct-start.js.v8')

/** What the command prints with no compile cache at all: what it must print whatever the cache holds. */
async function uncached(): Promise<RunResult> {
  const r = await runCli(ARGV, {env: {...env(), NODE_DISABLE_COMPILE_CACHE: '1'}})
  expect(r.code, r.stderr).toBe(0)
  return r
}

/** Fills the cache as a normal run does; returns that run. */
async function warm(): Promise<RunResult> {
  await uncached()
  const r = await runCli(ARGV, {env: env()})
  expect(r.code, r.stderr).toBe(0)
  expect(existsSync(plantedEntry())).toBe(true)
  return r
}

/** Runs the planted copy once over `cache`: it stores, as the CLI would, the entry for its own dist/startup/direct-start.js. */
async function runPlantedCopy(cache: string): Promise<void> {
  const r = await runCli(ARGV, {bin: join(plantedCopy, 'bin', 'run.js'), env: env(cache)})
  expect(r).toMatchObject({code: 0, stdout: 'PLANTED\n'})
}

/** Where V8's cached data starts in an entry: after whatever header the cache puts first. */
function v8Start(entry: Buffer): number {
  const v8Magic = new Script('0').createCachedData().subarray(0, 8)
  const at = entry.indexOf(v8Magic)
  expect(at).toBeGreaterThanOrEqual(0)
  return at
}

/**
 * What someone who can write the cache file would plant: the real entry's header (whatever it
 * says of the real dist/startup/direct-start.js) followed by V8's code of the planted source.
 */
async function forgedEntry(): Promise<Buffer> {
  const elsewhere = join(dir, 'elsewhere')
  await runPlantedCopy(elsewhere)
  const planted = readFileSync(plantedEntry(elsewhere))
  const real = readFileSync(plantedEntry())
  return Buffer.concat([real.subarray(0, v8Start(real)), planted.subarray(v8Start(planted))])
}

describe('a compile cache someone else could reach', () => {
  it('an entry made from another source of the same length is not run: the command behaves as without a cache', async () => {
    const expected = await uncached()
    // The planted copy stores the entry for its own direct-start.js, as another build of the same length would.
    await runPlantedCopy(cacheDir())
    const r = await runCli(ARGV, {env: env()})
    expect(r).toEqual(expected)
  })

  it('a command pack made from another source of the same length is not run: the command behaves as without a cache', async () => {
    const expected = await uncached()
    // Three runs of the planted copy: the list of the command's files, then its pack, made from its own list.js.
    for (let run = 0; run < 3; run++) {
      const r = await runCli(ARGV, {bin: join(plantedCommandCopy, 'bin', 'run.js'), env: env()})
      expect(r).toMatchObject({code: 0, stdout: 'PLANTED\n'})
    }

    expect(existsSync(join(buildFolder(), 'pack~profile~list.v8'))).toBe(true)
    expect(await runCli(ARGV, {env: env()})).toEqual(expected)
    expect(await runCli(ARGV, {env: env()})).toEqual(expected)
  })

  it('a file of dist/ that leaves a comment open fails the command as it does without a cache, not inside a pack', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'opsctl-broken-'))
    try {
      for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(broken, part), {recursive: true})
      symlinkSync(join(ROOT, 'node_modules'), join(broken, 'node_modules'))
      const command = join(broken, 'dist', 'commands', 'profile', 'list.js')
      writeFileSync(command, `${readFileSync(command, 'utf8')}\n/* never closed`)
      const openAt = readFileSync(command, 'utf8').split('\n').length
      const run = (extra: Record<string, string> = {}) => runCli(ARGV, {bin: join(broken, 'bin', 'run.js'), env: {...env(), ...extra}})
      // where and what the error is (the stack below differs with the compile hook, as it always has)
      const failure = (r: RunResult) => ({code: r.code, error: r.stderr.split('\n').filter((line) => /list\.js:\d+$|^SyntaxError/.test(line)), stdout: r.stdout})
      const expected = failure(await run({NODE_DISABLE_COMPILE_CACHE: '1'}))
      expect(expected).toEqual({code: 1, error: [`${command}:${openAt}`, 'SyntaxError: Invalid or unexpected token'], stdout: ''})
      // the first run records the files, the next would join them into a script that does not compile
      for (let i = 0; i < 3; i++) {
        const r = await run()
        expect(failure(r)).toEqual(expected)
        expect(r.stderr).not.toContain('pack~')
      }
    } finally {
      rmSync(broken, {force: true, recursive: true})
    }
  })

  it('control: a forged entry in a folder and file of the user\'s alone does run (so what stops it below is who owns it)', async () => {
    await warm()
    writeFileSync(plantedEntry(), await forgedEntry(), {mode: 0o600})
    const r = await runCli(ARGV, {env: env()})
    expect(r.stdout).toBe('PLANTED\n')
  })

  const shared: [string, () => void][] = [
    ['the entry is group-writable', () => chmodSync(plantedEntry(), 0o620)],
    ['the entry is world-writable', () => chmodSync(plantedEntry(), 0o602)],
    ['the build\'s folder is world-writable', () => chmodSync(buildFolder(), 0o703)],
    ['the compile-cache folder is group-writable', () => chmodSync(join(cacheDir(), 'compile-cache'), 0o770)],
    ['the cache folder is world-writable', () => chmodSync(cacheDir(), 0o777)],
  ]
  it.each(shared)('a forged entry is not used when %s', async (_, share) => {
    const expected = await warm()
    writeFileSync(plantedEntry(), await forgedEntry(), {mode: 0o600})
    share()
    expect(await runCli(ARGV, {env: env()})).toEqual(expected)
  })

  const nobody = () => Number(execFileSync('id', ['-u', 'nobody'], {encoding: 'utf8'}))
  const foreign: [string, () => void][] = [
    ['the entry belongs to another user', () => chownSync(plantedEntry(), nobody(), 0)],
    ['the build\'s folder belongs to another user', () => chownSync(buildFolder(), nobody(), 0)],
    ['the compile-cache folder belongs to another user', () => chownSync(join(cacheDir(), 'compile-cache'), nobody(), 0)],
    ['the cache folder belongs to another user', () => chownSync(cacheDir(), nobody(), 0)],
  ]
  it.skipIf(!root).each(foreign)('a forged entry is not used when %s', async (_, handOver) => {
    const expected = await warm()
    writeFileSync(plantedEntry(), await forgedEntry(), {mode: 0o600})
    handOver()
    expect(await runCli(ARGV, {env: env()})).toEqual(expected)
  })

  it('a FIFO in place of an entry does not hang the command', async () => {
    const expected = await warm()
    unlinkSync(plantedEntry())
    execFileSync('mkfifo', ['-m', '600', plantedEntry()])
    expect(await runCli(ARGV, {env: env()})).toEqual(expected)
  })

  it('a symlink to /dev/zero in place of an entry is not read: the command finishes as usual', async () => {
    const expected = await warm()
    for (const name of readdirSync(buildFolder())) {
      unlinkSync(join(buildFolder(), name))
      symlinkSync('/dev/zero', join(buildFolder(), name))
    }

    expect(await runCli(ARGV, {env: env()})).toEqual(expected)
  })

  it('an entry of a gigabyte is not read: the command finishes as usual, without growing', async () => {
    const expected = await warm()
    // Sparse: a gigabyte to read, none of it on disk.
    truncateSync(plantedEntry(), 1024 ** 3)
    const peak = join(dir, 'peak-rss')
    const hook = join(dir, 'peak-rss.cjs')
    writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(peak)}, String(process.resourceUsage().maxRSS * 1024)))\n`)
    expect(await runCli(ARGV, {env: {...env(), NODE_OPTIONS: `--require ${hook}`}})).toEqual(expected)
    expect(Number(readFileSync(peak, 'utf8'))).toBeLessThan(512 * 1024 ** 2)
  })

  it('a symlink planted where an entry is first written is not written through: its target is unchanged', async () => {
    const expected = await warm()
    const names = readdirSync(buildFolder())
    for (const name of names) unlinkSync(join(buildFolder(), name))
    const target = join(dir, 'precious')
    writeFileSync(target, 'precious')
    const r = await runCliPlanting(ARGV, env(), (pid) => {
      for (const name of names) symlinkSync(target, join(buildFolder(), `${name}.${pid}.tmp`))
    })
    expect(r).toEqual(expected)
    expect(readFileSync(target, 'utf8')).toBe('precious')
  })

  it('a compile-cache folder that is a symlink is not used, and its target\'s entries are not deleted', async () => {
    const target = join(dir, 'target')
    mkdirSync(join(target, 'opsctl-other-build'), {recursive: true})
    writeFileSync(join(target, 'opsctl-other-build', 'kept'), 'kept')
    writeFileSync(join(target, 'opsctl-file'), 'kept')
    mkdirSync(cacheDir(), {mode: 0o700})
    symlinkSync(target, join(cacheDir(), 'compile-cache'))
    expect((await runCli(ARGV, {env: env()})).code).toBe(0)
    expect(readdirSync(target, {recursive: true}).sort()).toEqual(['opsctl-file', 'opsctl-other-build', join('opsctl-other-build', 'kept')])
  })

  it('a cache folder that is a symlink is not used, and its target\'s entries are not deleted', async () => {
    const target = join(dir, 'target')
    mkdirSync(join(target, 'compile-cache', 'opsctl-other-build'), {mode: 0o700, recursive: true})
    writeFileSync(join(target, 'compile-cache', 'opsctl-other-build', 'kept'), 'kept')
    symlinkSync(target, cacheDir())
    expect((await runCli(ARGV, {env: env()})).code).toBe(0)
    expect(readdirSync(join(target, 'compile-cache'), {recursive: true}).sort()).toEqual(['opsctl-other-build', join('opsctl-other-build', 'kept')])
  })
})

/**
 * Runs the CLI and calls `plant` with its process id as soon as it is spawned, long before the
 * process stores its compiled code at exit (Node alone takes tens of milliseconds to start).
 */
function runCliPlanting(argv: string[], extraEnv: Record<string, string>, plant: (pid: number) => void): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {cwd: ROOT, env: {...baseEnv(), ...extraEnv}, stdio: ['ignore', 'pipe', 'pipe']})
    try {
      plant(child.pid!)
    } catch (error) {
      child.kill('SIGKILL')
      reject(error)
      return
    }

    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? 1, stdout, stderr}))
  })
}
