/**
 * Node 22+ keeps compiled code itself (module.enableCompileCache) and reads whatever its folder
 * holds: src/startup/compile-cache.ts turns it on only for a folder of the current user's alone.
 * These machines run Node 20, so Node's function is stood in for by a spy, in-process.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync} from 'node:fs'
import {Module} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

import {enableCompileCache} from '../../src/startup/compile-cache.js'

type WithNative = {enableCompileCache?: (dir: string) => unknown}
const nodeOwn = (Module as WithNative).enableCompileCache
const root = process.getuid?.() === 0
let dir: string
let native: ReturnType<typeof vi.fn<(dir: string) => unknown>>

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-native-cache-'))
  native = vi.fn<(dir: string) => unknown>()
  ;(Module as WithNative).enableCompileCache = native
  vi.stubEnv('OPSCTL_CACHE_DIR', join(dir, 'cache'))
  vi.stubEnv('NODE_DISABLE_COMPILE_CACHE', undefined)
})

afterEach(() => {
  ;(Module as WithNative).enableCompileCache = nodeOwn
  vi.unstubAllEnvs()
  rmSync(dir, {force: true, recursive: true})
})

const cache = () => join(dir, 'cache')
const folder = () => join(cache(), 'compile-cache')
const enable = () => enableCompileCache(join(dir, 'dist'))
const nobody = () => Number(execFileSync('id', ['-u', 'nobody'], {encoding: 'utf8'}))

describe('Node 22+\'s own compile cache', () => {
  it('is turned on in opsctl\'s cache folder, created private to the user', () => {
    enable()
    expect(native).toHaveBeenCalledWith(folder())
    expect(statSync(folder()).mode & 0o777).toBe(0o700)
  })

  it('is turned on in an existing private folder with entries of the user\'s', () => {
    mkdirSync(join(folder(), 'v22.12.0-x64-abc'), {mode: 0o700, recursive: true})
    enable()
    expect(native).toHaveBeenCalledWith(folder())
  })

  const untrusted: [string, () => void][] = [
    ['the cache folder is a symlink', () => {
      mkdirSync(join(dir, 'elsewhere'), {mode: 0o700})
      symlinkSync(join(dir, 'elsewhere'), cache())
    }],
    ['the cache folder is a symlink named with a trailing slash', () => {
      mkdirSync(join(dir, 'elsewhere'), {mode: 0o700})
      symlinkSync(join(dir, 'elsewhere'), cache())
      vi.stubEnv('OPSCTL_CACHE_DIR', `${cache()}/`)
    }],
    ['the compile-cache folder is a symlink', () => {
      mkdirSync(join(dir, 'elsewhere'), {mode: 0o700})
      mkdirSync(cache(), {mode: 0o700})
      symlinkSync(join(dir, 'elsewhere'), folder())
    }],
    ['the cache folder is world-writable', () => {
      mkdirSync(cache())
      chmodSync(cache(), 0o777)
    }],
    ['the compile-cache folder is group-writable', () => {
      mkdirSync(folder(), {recursive: true})
      chmodSync(folder(), 0o770)
    }],
    ['an entry of the compile-cache folder is a symlink', () => {
      mkdirSync(folder(), {mode: 0o700, recursive: true})
      symlinkSync('/tmp', join(folder(), 'v22.12.0-x64-abc'))
    }],
    ['an entry of the compile-cache folder is world-writable', () => {
      mkdirSync(join(folder(), 'v22.12.0-x64-abc'), {mode: 0o700, recursive: true})
      chmodSync(join(folder(), 'v22.12.0-x64-abc'), 0o707)
    }],
  ]
  it.each(untrusted)('is not turned on when %s', (_, setUp) => {
    setUp()
    enable()
    expect(native).not.toHaveBeenCalled()
  })

  const foreign: [string, () => void][] = [
    ['the cache folder belongs to another user', () => {
      mkdirSync(cache(), {mode: 0o700})
      chownSync(cache(), nobody(), 0)
    }],
    ['the compile-cache folder belongs to another user', () => {
      mkdirSync(folder(), {mode: 0o700, recursive: true})
      chownSync(folder(), nobody(), 0)
    }],
    ['an entry of the compile-cache folder belongs to another user', () => {
      mkdirSync(join(folder(), 'v22.12.0-x64-abc'), {mode: 0o700, recursive: true})
      chownSync(join(folder(), 'v22.12.0-x64-abc'), nobody(), 0)
    }],
  ]
  it.skipIf(!root).each(foreign)('is not turned on when %s', (_, setUp) => {
    setUp()
    enable()
    expect(native).not.toHaveBeenCalled()
  })
})
