/**
 * Tab completion as a shell runs it: the function that `opsctl autocomplete <shell> --script`
 * prints is loaded into a real bash, zsh and fish, given the words of a command line as the shell
 * would (COMP_WORDS/COMP_CWORD in bash, words/CURRENT in zsh, with compadd recording what it is
 * offered; fish's own `complete -C`, what it offers on Tab), and calls the built `opsctl` through a
 * shim on PATH. The profile, the checkout id and
 * the event ids come from a real config folder: a profile added with `profile add`, a checkout
 * created against a sandbox (so its id is in the audit log), the seeded patient's events listed.
 */
import {execFile} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, BIN, type Cli, ROOT, sandboxForFile} from '../e2e/harness.js'
import {pathWithOpsctl, type Shell, SHELLS, skipShell} from '../helpers/shell-terminal.js'

const run = promisify(execFile)
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {flags: Record<string, {hidden?: boolean}>; hidden?: boolean}>
}

let shim: string
let path: string
let user: Cli
let checkoutId: string
let eventIds: string[]
sandboxForFile(['--seed'], (_sandbox, cli) => {
  user = cli
})

beforeAll(async () => {
  shim = mkdtempSync(join(tmpdir(), 'opsctl-completion-'))
  path = pathWithOpsctl(shim)
  const added = await user.run(['profile', 'add', 'staging-eu', '--env', 'sandbox', '--health-url', 'http://127.0.0.1:1/api', '--checkout-url', 'http://127.0.0.1:1/checkout'])
  expect(added.code, added.stderr).toBe(0)
  const tenant = await user.run(['profile', 'add', 'job-1', '--env', 'sandbox', '--health-url', 'http://127.0.0.1:1/t/tn_0123456789abcdef', '--checkout-url', 'http://127.0.0.1:1/t/tn_0123456789abcdef/checkout'])
  expect(tenant.code, tenant.stderr).toBe(0)
  const created = await user.run(['checkout', 'create', '--amount', '10.00', '--success-url', 'https://shop.example/ok', '--json'])
  expect(created.code, created.stderr).toBe(0)
  checkoutId = JSON.parse(created.stdout).checkoutId
  const login = await user.run(['users', 'login', '--email', 'patient@demo-clinic.test', '--password-stdin'], {input: 'demo-patient-pass'})
  expect(login.code, login.stderr).toBe(0)
  const listed = await user.run(['events', 'list', 'me', '--limit', '3', '--json'])
  expect(listed.code, listed.stderr).toBe(0)
  eventIds = JSON.parse(listed.stdout).events.map((e: {id: string}) => e.id)
  expect(eventIds).toHaveLength(3)
})

afterAll(() => {
  if (shim) rmSync(shim, {force: true, recursive: true})
})

/** What the shell's completion function offers for `opsctl <words>`, the last word being under the cursor. */
async function complete(shell: Shell, words: string[]): Promise<string[]> {
  const {stdout: script} = await run(process.execPath, [BIN, 'autocomplete', shell, '--script'], {env: baseEnv()})
  const quoted = ['opsctl', ...words].map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ')
  const programs: Record<Shell, () => string> = {
    bash: () => `${script}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length}; _opsctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
    // fish completes a command line as typed: the test's words need no quoting
    fish: () => `${script}\ncomplete -C '${['opsctl', ...words].join(' ')}'`,
    // compadd and compdef exist only inside zsh's completion system: here they record what they are given.
    zsh: () =>
      `compdef() { :; }\ncompadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; shift; print -rl -- "$@"; }\n_files() { print -r -- '<files>'; }\n${script}\nwords=(${quoted}); CURRENT=${words.length + 1}; _opsctl_complete`,
  }
  const args = shell === 'fish' ? ['--no-config', '-c', programs.fish()] : ['-c', programs[shell]()]
  const {stdout} = await run(shell, args, {cwd: shim, env: {...baseEnv(), ...user.env, HOME: shim, PATH: path}})
  return stdout.split('\n').filter(Boolean)
}

describe.each(SHELLS)('completion in %s', (shell) => {
  if (skipShell(shell)) {
    // eslint-disable-next-line mocha/no-skipped-tests -- the reason is the point: it shows in the report
    it.skip(`skipped: ${shell} is not installed (apt-get install ${shell})`, () => {})
    return
  }

  it('completes a flag after a positional argument', async () => {
    expect(await complete(shell, ['events', 'list', 'me', '--li'])).toEqual(['--limit'])
  })

  it("completes a flag's values", async () => {
    expect(await complete(shell, ['events', 'list', 'me', '--output', ''])).toEqual(['table', 'json', 'ndjson', 'csv'])
    expect(await complete(shell, ['events', 'add', 'me', '--symptom', 'w'])).toEqual(['wokenAtNight', 'wheeze'])
  })

  it('completes profile names, for --profile and -p', async () => {
    expect(await complete(shell, ['webhook', 'list', '--profile', 'st'])).toEqual(['staging-eu'])
    expect(await complete(shell, ['webhook', 'list', '-p', ''])).toEqual(['job-1', 'sandbox', 'staging-eu'])
  })

  it('completes me for a user id, and a checkout id from the audit log', async () => {
    expect(await complete(shell, ['events', 'list', ''])).toEqual(['me'])
    expect(await complete(shell, ['checkout', 'void', checkoutId.slice(0, 4)])).toEqual([checkoutId])
  })

  it('completes a tenant id from the sandbox profiles that point at a tenant', async () => {
    expect(await complete(shell, ['sandbox', 'tenant', 'delete', ''])).toEqual(['tn_0123456789abcdef'])
  })

  it("completes an event id from the signed-in user's newest listed events", async () => {
    expect(await complete(shell, ['events', 'get', 'me', ''])).toEqual(eventIds)
    expect(await complete(shell, ['events', 'delete', 'me', eventIds[1]])).toEqual([eventIds[1]])
  })

  it('completes commands of a topic', async () => {
    expect(await complete(shell, ['checkout', 'v'])).toEqual(['void'])
  })

  it("completes a bare -- to the command's flags", async () => {
    const flags = Object.entries(manifest.commands['checkout:list'].flags)
      .filter(([, f]) => !f.hidden)
      .map(([name]) => `--${name}`)
      .sort()
    expect(await complete(shell, ['checkout', 'list', '--'])).toEqual(flags)
  })

  it('completes topics, commands and help topics after help, and commands of a topic', async () => {
    const first = new Set(Object.entries(manifest.commands).flatMap(([id, c]) => (c.hidden ? [] : [id.split(':')[0]])))
    expect(await complete(shell, ['help', ''])).toEqual([...first, 'environment', 'exit-codes'].sort())
    expect(await complete(shell, ['help', 'env'])).toEqual(['environment'])
    expect(await complete(shell, ['help', 'checkout', ''])).toEqual(['create', 'get', 'list', 'pay', 'reconcile', 'void'])
  })
})
