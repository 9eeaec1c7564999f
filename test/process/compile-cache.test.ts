/**
 * The compile cache of the built CLI (src/startup/compile-cache.ts), as real processes: where it
 * lives, that a cached run behaves exactly as a fresh one, and that a damaged cache never changes
 * what runs (what others could plant: compile-cache-trust.test.ts). The same hook runs on every
 * Node (Node 22+'s own cache stores too little to be worth it: see compile-cache.ts).
 */
import {execFileSync} from 'node:child_process'
import {cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {cacheDirectory} from '../../src/startup/compile-cache.js'
import {ROOT, runCli} from '../e2e/harness.js'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-compile-cache-'))
})

afterEach(() => {
  rmSync(dir, {force: true, recursive: true})
})

const env = () => ({OPSCTL_CACHE_DIR: join(dir, 'cache'), OPSCTL_CONFIG_DIR: join(dir, 'config')})
const buildFolder = () => join(dir, 'cache', 'compile-cache', `opsctl-${readFileSync(join(ROOT, 'dist', 'build-id'), 'utf8').trim()}-node${process.version}-${process.arch}`)
const cached = () => readdirSync(buildFolder()).sort()

describe('the cache folder', () => {
  it('is oclif\'s cache folder for opsctl: OPSCTL_CACHE_DIR, else the platform\'s per-user cache', () => {
    expect(cacheDirectory({OPSCTL_CACHE_DIR: '/srv/cache'}, 'linux')).toBe('/srv/cache')
    expect(cacheDirectory({XDG_CACHE_HOME: '/home/u/.xdg'}, 'linux')).toBe('/home/u/.xdg/opsctl')
    expect(cacheDirectory({}, 'linux')).toMatch(/\/\.cache\/opsctl$/)
    expect(cacheDirectory({}, 'darwin')).toMatch(/\/Library\/Caches\/opsctl$/)
    expect(cacheDirectory({LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local'}, 'win32')).toMatch(/AppData.Local.opsctl$/)
  })
})

describe('opsctl\'s own compile hook', () => {
  it('the first run stores the code of the files it loaded, private to the user, and which of them are the command\'s; the next runs print the same', async () => {
    const first = await runCli(['profile', 'list', '--json'], {env: env()})
    expect(first.code, first.stderr).toBe(0)
    const files = cached()
    expect(files).toContain('commands~profile~list.js.v8')
    expect(files).toContain('startup~direct-start.js.v8')
    expect(statSync(buildFolder()).mode & 0o777).toBe(0o700)
    // the files loaded once the command was known: its pack's (src/startup/command-pack.ts)
    const packed = JSON.parse(readFileSync(join(buildFolder(), 'pack~profile~list.json'), 'utf8')) as string[]
    expect(packed).toContain('commands/profile/list.js')
    expect(packed).not.toContain('startup/direct-start.js')
    expect(statSync(join(buildFolder(), 'pack~profile~list.json')).mode & 0o777).toBe(0o600)
    const mtimes = () => Object.fromEntries(cached().map((f) => [f, statSync(join(buildFolder(), f)).mtimeMs]))
    const written = mtimes()

    // the second run joins those files into one script and stores its code; nothing else changes
    const second = await runCli(['profile', 'list', '--json'], {env: env()})
    expect(second).toEqual(first)
    expect(mtimes()).toEqual({...written, 'pack~profile~list.v8': expect.any(Number)})
    const withPack = mtimes()

    const third = await runCli(['profile', 'list', '--json'], {env: env()})
    expect(third).toEqual(first)
    expect(mtimes()).toEqual(withPack)
  })

  it('a run with a pack loads the command\'s files from it: Node reads none of them, only those loaded before the command was known', async () => {
    const loadedByNode = join(dir, 'loaded-by-node.json')
    const hook = join(dir, 'loaded-by-node.cjs')
    // Node's own loader of .js files: what the pack leaves to it
    writeFileSync(
      hook,
      `const M = require('node:module'); const js = M._extensions['.js']; const seen = []
M._extensions['.js'] = function (module, filename) { seen.push(filename); return js.call(this, module, filename) }
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loadedByNode)}, JSON.stringify(seen)))\n`,
    )
    const run = async () => {
      const r = await runCli(['profile', 'list', '--json'], {env: {...env(), NODE_OPTIONS: `--require ${hook}`}})
      expect(r.code, r.stderr).toBe(0)
      return (JSON.parse(readFileSync(loadedByNode, 'utf8')) as string[]).filter((file) => file.startsWith(join(ROOT, 'dist')))
    }

    const unpacked = await run()
    expect(unpacked).toContain(join(ROOT, 'dist', 'commands', 'profile', 'list.js'))
    await run()
    const packed = await run()
    expect(packed).toContain(join(ROOT, 'dist', 'startup', 'direct-start.js'))
    expect(packed).not.toContain(join(ROOT, 'dist', 'commands', 'profile', 'list.js'))
    expect(packed.length).toBeLessThan(unpacked.length / 2)
  })

  it('a pack made from the files as they are takes its source from the cache: none of them is read again', async () => {
    const readByNode = join(dir, 'read.json')
    const hook = join(dir, 'read.cjs')
    // every file read whole through node:fs, which is how the pack's files are read to be joined
    writeFileSync(
      hook,
      `const fs = require('node:fs'); const read = fs.readFileSync; const seen = []
fs.readFileSync = function (file, ...rest) { seen.push(String(file)); return read.call(this, file, ...rest) }
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(readByNode)}, JSON.stringify(seen)))\n`,
    )
    const run = async () => {
      const r = await runCli(['profile', 'list', '--json'], {env: {...env(), NODE_OPTIONS: `--require ${hook}`}})
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(readFileSync(readByNode, 'utf8')) as string[]
    }

    await run()
    const packed = (JSON.parse(readFileSync(join(buildFolder(), 'pack~profile~list.json'), 'utf8')) as string[]).map((file) => join(ROOT, 'dist', file))
    expect(packed).toContain(join(ROOT, 'dist', 'commands', 'profile', 'list.js'))
    // the second run joins the recorded files into the pack, reading each
    expect(await run()).toEqual(expect.arrayContaining(packed))
    const third = await run()
    expect(third.filter((file) => packed.includes(file))).toEqual([])
  })

  it('a packed file changed in place, its length and modification time kept, runs as changed: its change time is in the stamp', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'opsctl-stamp-'))
    try {
      for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(copy, part), {recursive: true})
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
      const run = () => runCli(['profile', 'list', '--json'], {bin: join(copy, 'bin', 'run.js'), env: env()})
      for (let i = 0; i < 3; i++) expect((await run()).code).toBe(0)
      const command = join(copy, 'dist', 'commands', 'profile', 'list.js')
      const reference = join(dir, 'times')
      execFileSync('cp', ['-p', command, reference])
      const real = readFileSync(command, 'utf8')
      const changed = `process.stdout.write('CHANGED\\n'); process.exit(0) /*`
      // same inode, same length; then the same modification time, to the nanosecond
      writeFileSync(command, `${changed}${'*'.repeat(real.length - changed.length - 2)}*/`)
      execFileSync('touch', ['-r', reference, command])
      expect(statSync(command).mtimeMs).toBe(statSync(reference).mtimeMs)
      expect(await run()).toMatchObject({code: 0, stdout: 'CHANGED\n'})
    } finally {
      rmSync(copy, {force: true, recursive: true})
    }
  })

  it('a pack whose list names files outside dist/, or too many, is not used: the run records the list again', async () => {
    await runCli(['profile', 'list', '--json'], {env: env()})
    const expected = await runCli(['profile', 'list', '--json'], {env: env()})
    const list = join(buildFolder(), 'pack~profile~list.json')
    for (const planted of [['../../../../etc/passwd'], ['/etc/passwd'], Array.from({length: 1000}, (_, i) => `chunks/c${i}.js`), {not: 'a list'}]) {
      writeFileSync(list, JSON.stringify(planted), {mode: 0o600})
      expect(await runCli(['profile', 'list', '--json'], {env: env()})).toEqual(expected)
      expect(JSON.parse(readFileSync(list, 'utf8'))).toContain('commands/profile/list.js')
    }
  })

  it('cached code still runs oclif\'s whole start (its Config, its module loader), the first run and the next, without a word on stderr', async () => {
    // autocomplete reads oclif's whole Config; help no longer does (src/startup/help-start.ts)
    for (let run = 0; run < 2; run++) {
      const r = await runCli(['autocomplete', 'bash'], {env: env()})
      expect(r).toMatchObject({code: 0, stderr: ''})
      expect(r.stdout).toContain('opsctl autocomplete bash --script')
    }

    expect(cached()).toContain('oclif.js.v8')
  })

  it('damaged cached code is not run: the file is compiled from source and stored again', async () => {
    // The first run of all creates profiles.json, loading more than a run that reads it.
    await runCli(['profile', 'list', '--json'], {env: {...env(), NODE_DISABLE_COMPILE_CACHE: '1'}})
    const fresh = await runCli(['profile', 'list', '--json'], {env: env()})
    for (const file of cached()) writeFileSync(join(buildFolder(), file), 'not V8 code')
    const again = await runCli(['profile', 'list', '--json'], {env: env()})
    expect(again).toEqual(fresh)
    for (const file of cached()) expect(readFileSync(join(buildFolder(), file), 'utf8')).not.toBe('not V8 code')
  })

  it('a new build removes the cache of older builds', async () => {
    const old = join(dir, 'cache', 'compile-cache', 'opsctl-0000000000000000-node-v20.0.0-x64')
    mkdirSync(old, {recursive: true})
    writeFileSync(join(old, 'oclif.js.v8'), 'old')
    const r = await runCli(['profile', 'list', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(readdirSync(join(dir, 'cache', 'compile-cache'))).toEqual([buildFolder().split('/').at(-1)])
  })

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node\'s own', async () => {
    const r = await runCli(['profile', 'list', '--json'], {env: {...env(), NODE_DISABLE_COMPILE_CACHE: '1'}})
    expect(r.code, r.stderr).toBe(0)
    expect(() => readdirSync(join(dir, 'cache'))).toThrow(/ENOENT/)
  })

  it('a cache folder that cannot be written costs only speed', async () => {
    writeFileSync(join(dir, 'cache'), 'a file where the folder should be')
    const r = await runCli(['profile', 'list', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toHaveProperty('profiles')
  })
})
