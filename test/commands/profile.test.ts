import {chmodSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import ProfileAdd from '../../src/commands/profile/add.js'
import ProfileList from '../../src/commands/profile/list.js'
import ProfileRemove from '../../src/commands/profile/remove.js'
import ProfileShow from '../../src/commands/profile/show.js'
import ProfileUse from '../../src/commands/profile/use.js'
import WebhookDelete from '../../src/commands/webhook/delete.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {isolate, mockServices, runCommand} from '../helpers/command.js'

const SECRET = 'sk-live-Secret-Zz99Yy88Xx77'
const PUBLIC = 'pk-live-Public-Aa11Bb22Cc33'
const PROD_FLAGS = [
  '--env',
  'production',
  '--health-url',
  'https://health.example.com',
  '--checkout-url',
  'https://pay.example.com/checkout',
]

let env: ReturnType<typeof isolate>
const file = () => join(env.dir, 'profiles.json')
const stored = () => JSON.parse(readFileSync(file(), 'utf8'))

beforeEach(() => {
  env = isolate()
})

afterEach(() => {
  env.cleanup()
})

async function addProd(name = 'prod', extra: string[] = []) {
  const r = await runCommand(ProfileAdd, [name, ...PROD_FLAGS, '--public-key', PUBLIC, '--secret-key-stdin', ...extra], {
    stdin: `${SECRET}\n`,
  })
  expect(r.code, r.stderr).toBe(0)
  return r
}

function noSecrets(text: string) {
  for (const s of [SECRET, PUBLIC, SANDBOX_KEYS.secretKey, SANDBOX_KEYS.publicKey]) expect(text).not.toContain(s)
}

describe('profile list', () => {
  it('a fresh install lists the sandbox profile, keys masked; the file is created with mode 0600', async () => {
    const r = await runCommand(ProfileList, ['--json'])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.path).toBe(file())
    expect(out.profiles).toEqual([
      expect.objectContaining({
        name: 'sandbox',
        active: true,
        env: 'sandbox',
        healthUrl: 'http://127.0.0.1:4010',
        checkoutUrl: 'http://127.0.0.1:4010/checkout',
        publicKey: 'pk-s…Ks6',
        secretKey: 'sk-s…Ui4',
        session: null,
      }),
    ])
    noSecrets(r.stdout + r.stderr)
    expect(statSync(file()).mode & 0o777).toBe(0o600)
  })

  it('renders a table by default, secrets masked', async () => {
    await addProd()
    const r = await runCommand(ProfileList, [])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^name\tactive/m)
    expect(r.stdout).toMatch(/^prod\tfalse\tproduction/m)
    expect(r.stdout).toContain('sk-l…x77')
    noSecrets(r.stdout + r.stderr)
  })

  it('shows the OPSCTL_* overrides as an extra row naming the variables', async () => {
    process.env.OPSCTL_CHECKOUT_URL = 'http://127.0.0.1:5999/checkout'
    process.env.OPSCTL_CHECKOUT_SECRET_KEY = 'sk-from-env-Qq11Ww22'
    const r = await runCommand(ProfileList, ['--json'])
    const rows = JSON.parse(r.stdout).profiles
    expect(rows).toHaveLength(2)
    expect(rows[1]).toMatchObject({
      name: 'sandbox (+env)',
      source: 'OPSCTL_CHECKOUT_URL,OPSCTL_CHECKOUT_SECRET_KEY',
      checkoutUrl: 'http://127.0.0.1:5999/checkout',
      secretKey: 'sk-f…w22',
    })
    // The overridden row is the one in use: it is the active one, the file's row is not.
    expect(rows.map((row: {active: boolean}) => row.active)).toEqual([false, true])
    expect(r.stdout).not.toContain('sk-from-env-Qq11Ww22')
  })

  it('marks the profile OPSCTL_PROFILE chooses as active, not the file\'s choice', async () => {
    await addProd()
    const r = await runCommand(ProfileList, ['--json'], {env: {OPSCTL_PROFILE: 'prod'}})
    const active = JSON.parse(r.stdout).profiles.filter((row: {active: boolean}) => row.active).map((row: {name: string}) => row.name)
    expect(active).toEqual(['prod'])
  })

  it('still lists when OPSCTL_PROFILE names a profile that does not exist', async () => {
    process.env.OPSCTL_PROFILE = 'typo'
    const r = await runCommand(ProfileList, [])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('sandbox')
    expect(r.stderr).toContain('No profile named "typo"')
  })
})

describe('profile add', () => {
  it('stores a production profile with the secret key from stdin, shows it masked, mode 0600', async () => {
    const r = await addProd('prod', ['--language', 'fil-PH'])
    expect(r.result).toMatchObject({name: 'prod', env: 'production', secretKey: 'sk-l…x77', publicKey: 'pk-l…c33', language: 'fil-PH'})
    noSecrets(r.stdout + r.stderr)
    const p = stored().profiles.prod
    expect(p).toEqual({
      env: 'production',
      health: {baseUrl: 'https://health.example.com', apiVersion: '3.14.0', language: 'fil-PH'},
      checkout: {baseUrl: 'https://pay.example.com/checkout', publicKey: PUBLIC, secretKey: SECRET},
    })
    expect(stored().active).toBe('sandbox')
    expect(statSync(file()).mode & 0o777).toBe(0o600)
  })

  it('--use makes it active', async () => {
    await addProd('prod', ['--use'])
    expect(stored().active).toBe('prod')
  })

  it('without a terminal, missing values are an error that lists every missing flag; nothing is written', async () => {
    await runCommand(ProfileList, [])
    const before = readFileSync(file(), 'utf8')
    const r = await runCommand(ProfileAdd, ['prod', '--env', 'production', '--health-url', 'https://health.example.com'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Missing --checkout-url, --public-key')
    expect(r.stderr).not.toContain('--health-url <value>')
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^Error: /)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(readFileSync(file(), 'utf8')).toBe(before)
  })

  it('without --secret-key-stdin, no secret key is stored and a note says what is needed', async () => {
    const r = await runCommand(ProfileAdd, ['prod', ...PROD_FLAGS, '--public-key', PUBLIC])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('OPSCTL_CHECKOUT_SECRET_KEY')
    expect(stored().profiles.prod.checkout.secretKey).toBeUndefined()
  })

  it('an empty --secret-key-stdin is an error', async () => {
    const r = await runCommand(ProfileAdd, ['prod', ...PROD_FLAGS, '--public-key', PUBLIC, '--secret-key-stdin'], {stdin: '\n'})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--secret-key-stdin read nothing')
    expect(stored().profiles.prod).toBeUndefined()
  })

  it('a sandbox profile defaults to the sandbox keys and takes other URLs', async () => {
    const r = await runCommand(ProfileAdd, [
      'local',
      '--env',
      'sandbox',
      '--health-url',
      'http://127.0.0.1:5010',
      '--checkout-url',
      'http://127.0.0.1:5010/checkout',
      '--json',
    ])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({name: 'local', healthUrl: 'http://127.0.0.1:5010', secretKey: 'sk-s…Ui4'})
    expect(stored().profiles.local.checkout.secretKey).toBe(SANDBOX_KEYS.secretKey)
  })

  it('refuses to replace a profile without --force, and an invalid URL or name (exit 2)', async () => {
    await addProd()
    expect((await runCommand(ProfileAdd, ['prod', '--env', 'sandbox'])).stderr).toContain('exists; pass --force')
    const bad = await runCommand(ProfileAdd, [
      'x',
      '--env',
      'production',
      '--health-url',
      'ftp://h',
      '--checkout-url',
      'https://p',
      '--public-key',
      'pk',
    ])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/Invalid profile x: health\.baseUrl: must be an http\(s\) URL/)
    const name = await runCommand(ProfileAdd, ['../x', '--env', 'sandbox'])
    expect(name.code).toBe(2)
    expect(name.stderr).toContain('Invalid profile name')
    expect(Object.keys(stored().profiles)).toEqual(['sandbox', 'prod'])
    const forced = await runCommand(ProfileAdd, ['prod', '--env', 'sandbox', '--force'])
    expect(forced.code).toBe(0)
    expect(stored().profiles.prod.env).toBe('sandbox')
  })
})

describe('profile show', () => {
  it('shows the profile in use, masked, with the OPSCTL_* overrides it resolves with', async () => {
    await addProd()
    process.env.OPSCTL_PROFILE = 'prod'
    process.env.OPSCTL_HEALTH_URL = 'https://h2.example.com'
    const r = await runCommand(ProfileShow, ['--json'])
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: 'prod',
      healthUrl: 'https://h2.example.com',
      source: 'file+env(OPSCTL_HEALTH_URL)',
      secretKey: 'sk-l…x77',
    })
    noSecrets(r.stdout + r.stderr)
  })

  it('resolution order: --profile flag > OPSCTL_PROFILE > active', async () => {
    await addProd('prod')
    await addProd('other')
    const name = async (argv: string[]) => JSON.parse((await runCommand(ProfileShow, [...argv, '--json'])).stdout).name
    expect(await name([])).toBe('sandbox')
    process.env.OPSCTL_PROFILE = 'prod'
    expect(await name([])).toBe('prod')
    expect(await name(['--profile', 'other'])).toBe('other')
    expect(await name(['-p', 'other'])).toBe('other')
    expect(await name(['sandbox'])).toBe('sandbox')
  })

  it('an unknown profile is exit 2 with what to do', async () => {
    const r = await runCommand(ProfileShow, ['nope'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('No profile named "nope"')
    expect(r.stderr).toContain('Try this: See the profiles: opsctl profile list')
  })
})

describe('profile use / remove', () => {
  it('use switches the active profile', async () => {
    await addProd()
    const r = await runCommand(ProfileUse, ['prod', '--json'])
    expect(JSON.parse(r.stdout)).toEqual({active: 'prod'})
    expect(stored().active).toBe('prod')
    expect((await runCommand(ProfileUse, ['nope'])).code).toBe(2)
    expect(stored().active).toBe('prod')
  })

  it('remove needs --yes without a terminal, then removes; removing the active one leaves none active', async () => {
    await addProd()
    const refused = await runCommand(ProfileRemove, ['sandbox'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('pass --yes')
    expect(Object.keys(stored().profiles)).toEqual(['sandbox', 'prod'])

    const r = await runCommand(ProfileRemove, ['sandbox', '--yes', '--json'])
    expect(JSON.parse(r.stdout)).toEqual({active: null, removed: 'sandbox'})
    expect(stored()).toMatchObject({active: ''})
    expect(Object.keys(stored().profiles)).toEqual(['prod'])

    // With nothing active, the profile commands still work and the way out is one command.
    const list = await runCommand(ProfileList, [])
    expect(list.code).toBe(0)
    expect(list.stderr).toContain('No active profile')
    expect((await runCommand(ProfileUse, ['prod'])).code).toBe(0)
    expect(stored().active).toBe('prod')
  })
})

describe('a broken profiles.json', () => {
  const cases: [string, string][] = [
    ['corrupt', '{"version": 1, "active": '],
    [
      'hand-broken',
      JSON.stringify({version: 1, active: 'sandbox', profiles: {sandbox: {env: 'sandbox', health: {baseUrl: 'nope'}, checkout: {}}}}),
    ],
  ]
  for (const [what, text] of cases) {
    it(`${what}: every profile command fails with one line naming the file, and the file is not rewritten`, async () => {
      writeFileSync(file(), text, {mode: 0o600})
      const mtime = statSync(file()).mtimeMs
      for (const [Cmd, argv] of [
        [ProfileList, []],
        [ProfileShow, []],
        [ProfileUse, ['sandbox']],
        [ProfileRemove, ['sandbox', '--yes']],
        [ProfileAdd, ['x', '--env', 'sandbox']],
      ] as const) {
        const r = await runCommand(Cmd, [...argv])
        expect(r.code).toBe(2)
        expect(r.stdout).toBe('')
        expect(r.stderr.trim().split('\n')).toHaveLength(1)
        expect(r.stderr).toContain(`The profiles file ${file()} is invalid`)
      }

      const json = await runCommand(ProfileList, ['--json'])
      expect(json.stdout).toBe('')
      expect(JSON.parse(json.stderr).error).toMatchObject({exitCode: 2, name: 'ConfigFileError'})
      expect(readFileSync(file(), 'utf8')).toBe(text)
      expect(statSync(file()).mtimeMs).toBe(mtime)
    })
  }
})

describe('an empty profile name', () => {
  it('--profile \'\' is a one-line usage error (exit 2) for every command, and nothing is changed', async () => {
    await addProd()
    const before = readFileSync(file(), 'utf8')
    for (const [Cmd, argv] of [
      [ProfileRemove, ['sandbox', '--profile', '', '--yes']],
      [ProfileShow, ['--profile', '']],
      [ProfileShow, ['-p', '']],
      [ProfileShow, ['--profile=']],
      [ProfileUse, ['prod', '--profile', '']],
      [ProfileList, ['--profile', '']],
    ] as const) {
      const r = await runCommand(Cmd, [...argv])
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr.split('\n')[0]).toBe('Error: --profile must not be empty')
    }

    expect(readFileSync(file(), 'utf8')).toBe(before)
  })

  it('webhook delete --profile \'\' --yes sends nothing', async () => {
    const services = mockServices()
    try {
      const r = await runCommand(WebhookDelete, ['w-1', '--profile', '', '--yes', '--json'])
      expect(r.code).toBe(2)
      expect(JSON.parse(r.stderr).error).toMatchObject({exitCode: 2, message: '--profile must not be empty'})
      expect(services.calls()).toEqual([])
    } finally {
      await services.close()
    }
  })

  it('an empty <name> argument is refused, never read as the active profile', async () => {
    await addProd()
    const before = readFileSync(file(), 'utf8')
    for (const [Cmd, argv] of [
      [ProfileRemove, ['', '--yes']],
      [ProfileUse, ['']],
      [ProfileShow, ['']],
      [ProfileAdd, ['', '--env', 'sandbox']],
    ] as const) {
      const r = await runCommand(Cmd, [...argv])
      expect(r.code, Cmd.name).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr.split('\n')[0]).toBe('Error: The profile name must not be empty')
    }

    expect(readFileSync(file(), 'utf8')).toBe(before)
  })

  it('an empty OPSCTL_PROFILE counts as unset (like every empty OPSCTL_* variable): the active profile is used', async () => {
    await addProd('prod', ['--use'])
    process.env.OPSCTL_PROFILE = ''
    const r = await runCommand(ProfileShow, ['--json'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).name).toBe('prod')
  })
})

describe('the config folder', () => {
  it('a command that writes tightens a 0644 profiles.json or audit.jsonl to 0600, and a 0755 folder to 0700', async () => {
    await runCommand(ProfileList, [])
    const audit = join(env.dir, 'audit.jsonl')
    writeFileSync(audit, '{"operation":"voidCheckout"}\n')
    for (const path of [file(), audit]) chmodSync(path, 0o644)
    chmodSync(env.dir, 0o755)

    expect((await runCommand(ProfileList, [])).code).toBe(0)
    expect(statSync(file()).mode & 0o777).toBe(0o644)

    expect((await runCommand(ProfileUse, ['sandbox'])).code).toBe(0)
    expect(statSync(file()).mode & 0o777).toBe(0o600)
    expect(statSync(env.dir).mode & 0o777).toBe(0o700)

    chmodSync(env.dir, 0o755)
    const services = mockServices()
    try {
      services.agent
        .get('http://127.0.0.1:4010')
        .intercept({method: 'DELETE', path: '/checkout/v1/webhooks/w-1'})
        .reply(200, {id: 'w-1'}, {headers: {'content-type': 'application/json'}})
      const r = await runCommand(WebhookDelete, ['w-1', '--yes'])
      expect(r.code, r.stderr).toBe(0)
    } finally {
      await services.close()
    }

    expect(statSync(audit).mode & 0o777).toBe(0o600)
    expect(statSync(env.dir).mode & 0o777).toBe(0o700)
    expect(readFileSync(audit, 'utf8').trim().split('\n')).toHaveLength(2)
  })
})
