/**
 * Every error message first-things-first (issue 21): what happened on the first line, short, then
 * what to do. Piped, each message is one line (for logs and grep); in a terminal of 80 columns no
 * line is wider than 80, wrapped between words. Real processes: the terminal is the point
 * (a pseudo-terminal through `script`, as test/e2e/terminal-output.test.ts does).
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, BIN, runCli, type Sandbox, startSandbox} from './harness.js'

let configDir: string
let env: Record<string, string>

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), 'opsctl-messages-'))
  env = {OPSCTL_CONFIG_DIR: configDir}
})

afterAll(() => {
  rmSync(configDir, {force: true, recursive: true})
})

/** Runs opsctl in a pseudo-terminal `cols` wide; stdout and stderr both arrive on the screen. */
function inTerminal(argv: string[], cols: number, extra: Record<string, string> = {}): Promise<{code: number; lines: string[]}> {
  const quoted = [process.execPath, BIN, ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `stty cols ${cols}; ${quoted}`, '/dev/null'], {env: {...baseEnv(), ...env, ...extra}})
    let screen = ''
    child.stdout.on('data', (d) => (screen += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? 1, lines: screen.split(/\r?\n/).filter(Boolean)}))
  })
}

/** A loopback port nothing listens on: bound by the OS, then released. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  await new Promise((resolve) => server.close(resolve))
  return port
}

const widths = (lines: string[]) => lines.map((l) => [...l].length)

describe('errors say what happened first, in one or two lines that fit 80 columns', () => {
  it('a missing argument is named, with the usage line only', async () => {
    const piped = await runCli(['events', 'list'], {env})
    expect(piped.code).toBe(2)
    const lines = piped.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe('Error: Missing the user id: opsctl events list USERID')
    expect(piped.stderr).not.toContain('multiple values')
    expect(Math.max(...widths(lines))).toBeLessThanOrEqual(80)

    const get = await runCli(['checkout', 'get'], {env})
    expect(get.stderr.split('\n')[0]).toBe('Error: Missing the checkout id: opsctl checkout get CHECKOUTID')
  })

  it('a missing flag is named as it is typed: --reason', async () => {
    const r = await runCli(['checkout', 'void', 'chk_1', '--yes'], {env})
    expect(r.code).toBe(2)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe('Error: Missing required flag --reason')
    expect(Math.max(...widths(lines))).toBeLessThanOrEqual(80)
  })

  it("a metric of another period says whose it is first, and what to ask instead", async () => {
    const r = await runCli(['metrics', 'get', 'me', '--period', 'monthly', '--name', 'eventsRescue'], {env})
    expect(r.code).toBe(5)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toEqual(['Error: Metric eventsRescue is a daily metric, not monthly', '  Try this: Ask it with --period daily'])
  })

  it('smoke with no sandbox answering stops at once with one line (exit 7) naming its port', async () => {
    const port = await freePort()
    const added = await runCli(
      ['profile', 'add', 'gone', '--env', 'sandbox', '--health-url', `http://127.0.0.1:${port}`, '--checkout-url', `http://127.0.0.1:${port}/checkout`],
      {env},
    )
    expect(added.code, added.stderr).toBe(0)
    const r = await runCli(['smoke', '-p', 'gone'], {env})
    expect(r.code).toBe(7)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toEqual([`Error: No sandbox answering at http://127.0.0.1:${port}; nothing was run`, `  Try this: Start one: opsctl sandbox start --port ${port}`])
    expect(r.stdout).toBe('')
  })

  it('a mistyped profile gets a did-you-mean, and says when OPSCTL_PROFILE named it', async () => {
    const typed = await runCli(['checkout', 'get', 'chk_1', '-p', 'sandbx'], {env})
    expect(typed.code).toBe(2)
    const lines = typed.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe('Error: No profile named "sandbx"; did you mean "sandbox"?')
    expect(Math.max(...widths(lines))).toBeLessThanOrEqual(80)

    const fromEnv = await runCli(['checkout', 'get', 'chk_1'], {env: {...env, OPSCTL_PROFILE: 'sandbx'}})
    expect(fromEnv.code).toBe(2)
    expect(fromEnv.stderr.split('\n')[0]).toBe('Error: No profile named "sandbx" (from OPSCTL_PROFILE); did you mean "sandbox"?')
    expect(fromEnv.stderr).toContain('Try this: Fix or unset OPSCTL_PROFILE, or choose one with --profile <name>')
  })

  it('-p typed before the command says where flags go, with the line put right', async () => {
    const r = await runCli(['-p', 'sandbx', 'checkout', 'get', 'chk_1'], {env})
    expect(r.code).toBe(2)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe('Error: -p goes after the command: opsctl checkout get chk_1 -p sandbx')
    expect(Math.max(...widths(lines))).toBeLessThanOrEqual(80)
  })

  it('in a terminal of 80 columns a long message wraps between words; piped it stays one line', async () => {
    const argv = ['events', 'list', 'me', '--columns', 'nope']
    const piped = await runCli(argv, {env})
    expect(piped.code).toBe(2)
    const first = piped.stderr.split('\n')[0]
    expect(first).toMatch(/^Error: --columns: unknown column "nope"; available: /)
    expect(first.length).toBeGreaterThan(80)

    const {code, lines} = await inTerminal(argv, 80)
    expect(code).toBe(2)
    expect(lines[0]).toMatch(/^Error: --columns: unknown column "nope"; available: /)
    expect(Math.max(...widths(lines)), lines.join('\n')).toBeLessThanOrEqual(80)
    // nothing lost: the wrapped lines joined are the piped message
    expect(lines.map((l) => l.trim()).join(' ')).toBe(piped.stderr.trimEnd().split('\n').map((l) => l.trim()).join(' '))
  })

  it('in a terminal the OPSCTL_PROFILE did-you-mean and its advice fit 80 columns', async () => {
    const {code, lines} = await inTerminal(['checkout', 'get', 'chk_1'], 80, {OPSCTL_PROFILE: 'sandbx'})
    expect(code).toBe(2)
    expect(lines[0]).toMatch(/^Error: No profile named "sandbx" \(from OPSCTL_PROFILE\)/)
    expect(Math.max(...widths(lines)), lines.join('\n')).toBeLessThanOrEqual(80)
  })
})

describe('a dry run says which variables its curl reads', () => {
  it('users login: the password is $OPSCTL_PASSWORD, never "[REDACTED]", and a note says to export it', async () => {
    const r = await runCli(['users', 'login', '--email', 'a@example.com', '--password-stdin', '--dry-run'], {env, input: 'pw-Secret-123'})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`"password":"'"$OPSCTL_PASSWORD"'"`)
    expect(r.stdout).not.toContain('REDACTED')
    expect(r.stdout + r.stderr).not.toContain('pw-Secret-123')
    expect(r.stderr.trimEnd().split('\n')).toEqual(['Note: the curl reads $OPSCTL_PASSWORD; export it before running it'])
  })

  it('refund create: a note names $OPSCTL_CHECKOUT_SECRET_KEY', async () => {
    const r = await runCli(['refund', 'create', 'chk_1', '--reason', 'dup', '--amount', '1.00', '--currency', 'PHP', '--yes', '--dry-run'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('$OPSCTL_CHECKOUT_SECRET_KEY')
    expect(r.stderr).toContain('Note: the curl reads $OPSCTL_CHECKOUT_SECRET_KEY; export it before running it')
  })
})

describe('checkout create in a terminal', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startSandbox()
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('prints the payment page URL on a line of its own, whole, however narrow the terminal', async () => {
    const urls = {OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl, OPSCTL_HEALTH_URL: sandbox.healthUrl}
    const {code, lines} = await inTerminal(['checkout', 'create', '--amount', '150.00'], 50, urls)
    expect(code, lines.join('\n')).toBe(0)
    const url = lines.find((l) => l.includes('/pay/'))
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/checkout\/pay\/chk_\w+$/)
    expect(lines[lines.indexOf(url!) - 1]).toBe('Payment page:')
    // piped, the document is the usual one: the URL is a field of the row
    const piped = await runCli(['checkout', 'create', '--amount', '150.00'], {env: {...env, ...urls}})
    expect(piped.stdout).toMatch(/^redirectUrl\t/m)
    expect(piped.stdout).not.toContain('Payment page:')
  })
})
