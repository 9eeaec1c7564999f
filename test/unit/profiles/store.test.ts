import {execFileSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ExitCode} from '../../../src/errors.js'
import {STALE_LOCK_MS} from '../../../src/profiles/lock.js'
import {checkoutTarget, healthTarget, resolveProfile} from '../../../src/profiles/resolve.js'
import {checkProfileFile, type Profile, profileProblem} from '../../../src/profiles/schema.js'
import {ConfigFileError, ProfileStore} from '../../../src/profiles/store.js'
import {SANDBOX_KEYS} from '../../../src/services/sandbox-defaults.js'

let dir: string
const file = () => join(dir, 'profiles.json')

const prod: Profile = {
  env: 'production',
  health: {baseUrl: 'https://health.example.com', apiVersion: '3.14.0'},
  checkout: {baseUrl: 'https://pay.example.com/checkout', publicKey: 'pk-live-Aa11Bb22Cc33', secretKey: 'sk-live-Dd44Ee55Ff66'},
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-store-'))
})

afterEach(() => {
  rmSync(dir, {force: true, recursive: true})
})

async function openError(): Promise<ConfigFileError> {
  try {
    await ProfileStore.open(dir)
  } catch (error) {
    return error as ConfigFileError
  }

  throw new Error('expected open to fail')
}

describe('ProfileStore', () => {
  it('a fresh folder gets profiles.json, mode 0600, with the built-in sandbox profile active', async () => {
    const store = await ProfileStore.open(dir)
    expect(store.path).toBe(file())
    expect(statSync(file()).mode & 0o777).toBe(0o600)
    expect(store.activeName).toBe('sandbox')
    expect(store.names()).toEqual(['sandbox'])
    const sandbox = store.require('sandbox')
    expect(sandbox.health.baseUrl).toBe('http://127.0.0.1:4010')
    expect(sandbox.checkout.baseUrl).toBe('http://127.0.0.1:4010/checkout')
    expect(sandbox.checkout.secretKey).toBe(SANDBOX_KEYS.secretKey)
    expect(JSON.parse(readFileSync(file(), 'utf8')).profiles.sandbox.env).toBe('sandbox')
  })

  it('changes are written by save(), atomically, keeping mode 0600 even over a looser file', async () => {
    const store = await ProfileStore.open(dir)
    chmodSync(file(), 0o644)
    store.set('prod', prod)
    store.use('prod')
    expect(store.unsaved).toBe(true)
    expect(JSON.parse(readFileSync(file(), 'utf8')).active).toBe('sandbox')
    await store.save()
    expect(store.unsaved).toBe(false)
    expect(statSync(file()).mode & 0o777).toBe(0o600)
    const again = await ProfileStore.open(dir)
    expect(again.activeName).toBe('prod')
    expect(again.require('prod')).toEqual(prod)
  })

  it('update() changes one profile and returns it', async () => {
    const store = await ProfileStore.open(dir)
    const next = store.update('sandbox', (p) => ({...p, health: {...p.health, session: 'sess-1', userId: 'u-1'}}))
    expect(next.health.session).toBe('sess-1')
    await store.save()
    expect((await ProfileStore.open(dir)).require('sandbox').health.userId).toBe('u-1')
  })

  it('removing the active profile leaves none active (never silently another one)', async () => {
    const store = await ProfileStore.open(dir)
    store.set('prod', prod)
    store.remove('sandbox')
    expect(store.activeName).toBe('')
    expect(() => store.require(store.activeName)).toThrow(/No active profile/)
    await store.save()
    expect((await ProfileStore.open(dir)).names()).toEqual(['prod'])
  })

  it('rejects an invalid name, an unknown profile and an invalid profile (exit 2)', async () => {
    const store = await ProfileStore.open(dir)
    expect(() => store.set('../evil', prod)).toThrow(/Invalid profile name/)
    expect(() => store.require('nope')).toThrow(/No profile named "nope"/)
    expect(() => store.use('constructor')).toThrow(/No profile named "constructor"/)
    expect(() => store.set('bad', {...prod, health: {baseUrl: 'mailto:ops@example.com'}})).toThrow()
    expect(store.unsaved).toBe(false)
  })

  it('a save keeps what another process saved since this one read the file (it re-reads under the lock)', async () => {
    await ProfileStore.open(dir)
    const first = await ProfileStore.open(dir)
    const second = await ProfileStore.open(dir)
    first.set('a', prod)
    second.set('b', prod)
    second.use('b')
    await first.save()
    await second.save()
    const again = await ProfileStore.open(dir)
    expect(again.names()).toEqual(['a', 'b', 'sandbox'])
    expect(again.activeName).toBe('b')
    expect(second.names()).toEqual(['a', 'b', 'sandbox'])
  })

  it('update() is applied again at save, so both changes to one profile are kept', async () => {
    await ProfileStore.open(dir)
    const login = await ProfileStore.open(dir)
    const other = await ProfileStore.open(dir)
    login.update('sandbox', (p) => ({...p, health: {...p.health, session: 'sess-1', userId: 'u-1'}}))
    other.update('sandbox', (p) => ({...p, health: {...p.health, language: 'fil-PH'}}))
    await other.save()
    await login.save()
    expect((await ProfileStore.open(dir)).require('sandbox').health).toMatchObject({language: 'fil-PH', session: 'sess-1', userId: 'u-1'})
  })

  it('a change that no longer applies to the file as saved meanwhile fails, and nothing is written', async () => {
    await ProfileStore.open(dir)
    const remover = await ProfileStore.open(dir)
    const login = await ProfileStore.open(dir)
    const creator = await ProfileStore.open(dir)
    const racer = await ProfileStore.open(dir)
    remover.remove('sandbox')
    login.update('sandbox', (p) => ({...p, health: {...p.health, session: 'sess-1'}}))
    creator.set('p', prod, {replace: false})
    racer.set('p', {...prod, env: 'sandbox'}, {replace: false})
    await remover.save()
    await creator.save()
    const before = readFileSync(file(), 'utf8')
    await expect(login.save()).rejects.toThrow(/No profile named "sandbox"/)
    await expect(racer.save()).rejects.toThrow(/Profile p exists; pass --force/)
    expect(readFileSync(file(), 'utf8')).toBe(before)
    expect(login.unsaved).toBe(false)
    expect((await ProfileStore.open(dir)).require('p')).toEqual(prod)
  })

  it('a lock left behind by a process that died is taken over once stale', async () => {
    await ProfileStore.open(dir)
    const lockDir = `${file()}.lock`
    mkdirSync(lockDir)
    const past = new Date(Date.now() - STALE_LOCK_MS - 1000)
    utimesSync(lockDir, past, past)
    const store = await ProfileStore.open(dir)
    store.set('prod', prod)
    await store.save()
    expect((await ProfileStore.open(dir)).names()).toEqual(['prod', 'sandbox'])
    expect(existsSync(lockDir)).toBe(false)
  })

  it('a save tightens a looser folder to 0700 and creates a missing one 0700', async () => {
    chmodSync(dir, 0o755)
    await ProfileStore.open(dir)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const nested = join(dir, 'a', 'b')
    await ProfileStore.open(nested)
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o700)
    expect(statSync(nested).mode & 0o777).toBe(0o700)
    expect(statSync(join(nested, 'profiles.json')).mode & 0o777).toBe(0o600)
  })

  const broken: [string, string, RegExp][] = [
    ['not JSON', '{"version": 1, "active": "sandbox", ', /not JSON/],
    ['an unknown env', JSON.stringify({version: 1, active: 'x', profiles: {x: {...prod, env: 'staging'}}}), /profiles\.x\.env/],
    [
      'a missing base URL',
      JSON.stringify({version: 1, active: 'x', profiles: {x: {...prod, checkout: {}}}}),
      /profiles\.x\.checkout\.baseUrl/,
    ],
    ['a wrong version', JSON.stringify({version: 2, active: 'x', profiles: {}}), /version/],
    ['an array', '[]', /root/],
  ]
  for (const [what, text, problem] of broken) {
    it(`a file with ${what} is a one-line error naming the file, and the file is left as it was`, async () => {
      writeFileSync(file(), text, {mode: 0o600})
      const before = statSync(file()).mtimeMs
      const error = await openError()
      expect(error).toBeInstanceOf(ConfigFileError)
      expect(error.exitCode).toBe(ExitCode.Usage)
      expect(error.message).toContain(file())
      expect(error.message).toMatch(problem)
      expect(error.message).not.toContain('\n')
      expect(readFileSync(file(), 'utf8')).toBe(text)
      expect(statSync(file()).mtimeMs).toBe(before)
    })
  }

  it('a profiles.json that cannot be read is reported, not replaced', async () => {
    mkdirSync(join(file(), 'keep'), {recursive: true})
    const error = await openError()
    expect(error).toBeInstanceOf(ConfigFileError)
    expect(error.message).toContain(file())
    expect(error.message).toMatch(/EISDIR/)
    expect(existsSync(join(file(), 'keep'))).toBe(true)
  })

  it('a FIFO in place of profiles.json is refused at once, not waited on (every command reads it first)', async () => {
    execFileSync('mkfifo', ['-m', '600', file()])
    const error = await openError()
    expect(error).toBeInstanceOf(ConfigFileError)
    expect(error.message).toBe(`The profiles file ${file()} is invalid (not a regular file); fix or move it, nothing was changed`)
    expect(statSync(file()).isFIFO()).toBe(true)
  })

  it('a profiles.json of more than 4 MiB is refused unread, not held in memory', async () => {
    writeFileSync(file(), '{', {mode: 0o600})
    truncateSync(file(), 4 * 1024 * 1024 + 1)
    const error = await openError()
    expect(error.message).toContain('is invalid (larger than 4 MiB)')
  })
})

describe('resolveProfile', () => {
  async function storeWithProd(): Promise<ProfileStore> {
    const store = await ProfileStore.open(dir)
    store.set('prod', prod)
    store.set('other', {...prod, checkout: {baseUrl: 'https://other.example.com'}})
    await store.save()
    return store
  }

  it('order: --profile flag > OPSCTL_PROFILE > the active profile', async () => {
    const store = await storeWithProd()
    expect((await resolveProfile(store, undefined, {})).name).toBe('sandbox')
    expect((await resolveProfile(store, undefined, {OPSCTL_PROFILE: 'prod'})).name).toBe('prod')
    expect((await resolveProfile(store, 'other', {OPSCTL_PROFILE: 'prod'})).name).toBe('other')
    await expect(resolveProfile(store, 'missing', {})).rejects.toThrow(/No profile named "missing"/)
  })

  it('an empty OPSCTL_PROFILE counts as unset; an empty name given explicitly is an error, never the active profile', async () => {
    const store = await storeWithProd()
    expect((await resolveProfile(store, undefined, {OPSCTL_PROFILE: ''})).name).toBe('sandbox')
    await expect(resolveProfile(store, '', {OPSCTL_PROFILE: 'prod'})).rejects.toMatchObject({
      exitCode: ExitCode.Usage,
      message: 'The profile name must not be empty',
    })
  })

  it('OPSCTL_* values override the profile chosen without naming one and are listed; the file is not changed', async () => {
    const store = await storeWithProd()
    const r = await resolveProfile(store, undefined, {
      OPSCTL_PROFILE: 'prod',
      OPSCTL_HEALTH_URL: 'https://h2.example.com',
      OPSCTL_HEALTH_SESSION: 'sess-env',
      OPSCTL_CHECKOUT_URL: 'https://p2.example.com/checkout',
      OPSCTL_CHECKOUT_PUBLIC_KEY: 'pk-env-123456',
      OPSCTL_CHECKOUT_SECRET_KEY: 'sk-env-123456',
    })
    expect(r.fromEnv).toEqual([
      'OPSCTL_HEALTH_URL',
      'OPSCTL_HEALTH_SESSION',
      'OPSCTL_CHECKOUT_URL',
      'OPSCTL_CHECKOUT_PUBLIC_KEY',
      'OPSCTL_CHECKOUT_SECRET_KEY',
    ])
    expect(healthTarget(r)).toMatchObject({service: 'health', baseUrl: 'https://h2.example.com', session: 'sess-env'})
    expect(checkoutTarget(r)).toMatchObject({
      baseUrl: 'https://p2.example.com/checkout',
      publicKey: 'pk-env-123456',
      secretKey: 'sk-env-123456',
    })
    expect(store.require('prod')).toEqual(prod)
    expect(store.unsaved).toBe(false)
  })

  it('a profile named on the command line is used as stored, whatever OPSCTL_* values the environment holds', async () => {
    const store = await storeWithProd()
    const env = {
      OPSCTL_CHECKOUT_SECRET_KEY: 'sk-env-123456',
      OPSCTL_CHECKOUT_URL: 'http://127.0.0.1:4010/checkout',
      OPSCTL_HEALTH_SESSION: 'sess-env',
      OPSCTL_HEALTH_URL: 'http://127.0.0.1:4010',
      OPSCTL_PROFILE: 'sandbox',
    }
    const r = await resolveProfile(store, 'prod', env)
    expect(r.fromEnv).toEqual([])
    expect(r.profile).toEqual(prod)
    // the same variables do apply to the profile chosen without naming one
    expect((await resolveProfile(store, undefined, env)).fromEnv).toHaveLength(4)
  })

  it('opens the store itself when given a folder', async () => {
    await storeWithProd()
    const r = await resolveProfile(dir, 'prod', {})
    expect(r.profile.checkout.baseUrl).toBe('https://pay.example.com/checkout')
  })
})

describe('the profiles.json shape', () => {
  const file = (profiles: Record<string, unknown>) => ({version: 1, active: 'p', profiles})

  it('accepts a valid file and keeps fields it does not know (a newer opsctl may have written them)', () => {
    const checked = checkProfileFile(file({p: {...prod, note: 'kept', checkout: {...prod.checkout, extra: 1}}}))
    expect(checked.problem).toBeUndefined()
    expect(checked.data?.profiles.p).toMatchObject({note: 'kept', checkout: {extra: 1}})
  })

  it('names the first field it rejects', () => {
    const cases: [unknown, string][] = [
      [null, 'root: expected an object'],
      [{...file({}), active: 3}, 'active: expected a string'],
      [{...file({}), profiles: []}, 'profiles: expected an object'],
      [file({'bad name': prod}), 'profiles.bad name: invalid profile name'],
      [file({p: 'x'}), 'profiles.p: expected an object'],
      [file({p: {...prod, health: null}}), 'profiles.p.health: expected an object'],
      [file({p: {...prod, health: {baseUrl: 'mailto:a@b.c'}}}), 'profiles.p.health.baseUrl: must be an http(s) URL'],
      [file({p: {...prod, health: {baseUrl: 42}}}), 'profiles.p.health.baseUrl: must be an http(s) URL'],
      [file({p: {...prod, health: {...prod.health, session: ''}}}), 'profiles.p.health.session: must not be empty'],
      [file({p: {...prod, health: {...prod.health, language: 5}}}), 'profiles.p.health.language: expected a string'],
      [file({p: {...prod, checkout: {...prod.checkout, secretKey: ''}}}), 'profiles.p.checkout.secretKey: must not be empty'],
    ]
    for (const [value, problem] of cases) expect(checkProfileFile(value).problem, problem).toBe(problem)
  })

  it('profileProblem checks one profile', () => {
    expect(profileProblem(prod)).toBeUndefined()
    expect(profileProblem({...prod, checkout: {baseUrl: 'ftp://x'}})).toBe('checkout.baseUrl: must be an http(s) URL')
  })
})
