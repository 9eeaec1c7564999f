/**
 * `profile set` changes one value and keeps the rest (the secret key only from stdin); `profile
 * check` makes one authenticated read per credential against a real sandbox, changing nothing, and
 * says which credential works; `help environment` lists every variable the sources read.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ENVIRONMENT} from '../../src/cli/environment.js'
import Help from '../../src/commands/help.js'
import ProfileCheck from '../../src/commands/profile/check.js'
import ProfileSet from '../../src/commands/profile/set.js'
import UsersLogin from '../../src/commands/users/login.js'
import {ROOT, runCommand} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

const file = sandboxPerFile({seed: true})
const profiles = () => readFileSync(join(file.user.dir, 'profiles.json'), 'utf8')
/** A loopback port nothing listens on (the discard port, closed on these machines). */
const CLOSED = 'http://127.0.0.1:9'

describe('profile set', () => {
  it('changes one setting and keeps the others', async () => {
    const before = JSON.parse((await runCommand(ProfileSet, ['sandbox', 'language', 'fil-PH', '--json'])).stdout)
    expect(before).toMatchObject({language: 'fil-PH', env: 'sandbox', publicKey: expect.any(String)})
    const r = await runCommand(ProfileSet, ['sandbox', 'language', '--unset', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({language: null, healthUrl: before.healthUrl, publicKey: before.publicKey})
  })

  it('takes the secret key from stdin, stores it, and never prints it', async () => {
    const r = await runCommand(ProfileSet, ['sandbox', 'secret-key', '--json'], {stdin: 'sk-from-stdin-123456\n'})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout + r.stderr).not.toContain('sk-from-stdin-123456')
    expect(JSON.parse(profiles()).profiles.sandbox.checkout.secretKey).toBe('sk-from-stdin-123456')
  })

  it('refuses a secret on the command line, a bad URL or value, and an unset of a required setting: exit 2, file unchanged', async () => {
    const unchanged = profiles()
    for (const argv of [
      ['sandbox', 'secret-key', 'sk-on-the-command-line'],
      ['sandbox', 'health-url', 'ftp://example.com'],
      ['sandbox', 'env', 'staging'],
      ['sandbox', 'checkout-url', '--unset'],
      ['sandbox', 'language', ''],
      ['nosuch', 'language', 'en'],
    ]) {
      const r = await runCommand(ProfileSet, argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stderr.split('\n')[0], argv.join(' ')).toMatch(/^Error: /)
      expect(r.stderr).not.toContain('sk-on-the-command-line')
    }

    expect(profiles()).toBe(unchanged)
  })
})

describe('profile check', () => {
  it('without a session: the secret key works, the session is missing (exit 3)', async () => {
    await runCommand(ProfileSet, ['sandbox', 'secret-key'], {stdin: file.sandbox.secretKey})
    const r = await runCommand(ProfileCheck, ['--json'])
    expect(r.code, r.stderr).toBe(3)
    expect(JSON.parse(r.stdout).checks).toEqual([
      expect.objectContaining({service: 'health', credential: 'session', status: 'not configured'}),
      expect.objectContaining({service: 'checkout', credential: 'secret key', status: 'ok'}),
      expect.objectContaining({service: 'checkout', credential: 'public key', status: 'not checked'}),
    ])
  })

  it('signed in with good keys: every credential ok, exit 0, and nothing changed in the sandbox', async () => {
    const login = await runCommand(UsersLogin, ['--email', 'patient@demo-clinic.test', '--password-stdin'], {stdin: 'demo-patient-pass'})
    expect(login.code, login.stderr).toBe(0)
    const before = await file.sandbox.control('state')
    const r = await runCommand(ProfileCheck, ['sandbox', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).checks.map((c: {status: string}) => c.status)).toEqual(['ok', 'ok', 'not checked'])
    expect(await file.sandbox.control('state')).toEqual(before)
  })

  it('a wrong secret key is bad credentials (exit 3); unreachable services are exit 7', async () => {
    const bad = await runCommand(ProfileCheck, ['--json'], {env: {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-wrong-key-000000'}})
    expect(bad.code).toBe(3)
    expect(JSON.parse(bad.stdout).checks[1]).toMatchObject({status: 'bad credentials', detail: expect.stringContaining('401')})

    const down = await runCommand(ProfileCheck, ['--json'], {env: {OPSCTL_CHECKOUT_URL: `${CLOSED}/checkout`, OPSCTL_HEALTH_URL: CLOSED}})
    expect(down.code).toBe(7)
    expect(JSON.parse(down.stdout).checks.slice(0, 2).map((c: {status: string}) => c.status)).toEqual(['unreachable', 'unreachable'])
  })
})

describe('help environment', () => {
  it('lists every OPSCTL_* variable the sources read, and the table lists no other', async () => {
    const named = new Set<string>()
    for (const entry of readdirSync(join(ROOT, 'src'), {recursive: true, withFileTypes: true})) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
      for (const [name] of readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(/\bOPSCTL_[A-Z][A-Z0-9_]*\b/g)) named.add(name)
    }

    named.delete('OPSCTL_VERSION') // the build's version constant, not a variable
    const tabled = ENVIRONMENT.map((v) => v.name).filter((n) => n.startsWith('OPSCTL_'))
    expect([...named].sort()).toEqual([...tabled].sort())

    const r = await runCommand(Help, ['environment'])
    expect(r.code).toBe(0)
    for (const v of ENVIRONMENT) expect(r.stdout).toContain(v.name)
    expect(r.stdout.split('\n').filter((line) => line.length > 80)).toEqual([])
  })
})
