/**
 * Tables as a person sees them: in a pseudo-terminal 80 columns wide (`script`, `stty cols 80`)
 * no line of `events list` is wider than 80 and there are no boxes; piped, the same listing is
 * tab-separated with a header. A terminal is the point here, so these are real processes.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {LoopbackServers} from '../helpers/loopback-servers.js'
import {baseEnv, BIN, type Cli, runCli, type Sandbox, sandboxForFile} from './harness.js'

let cli: Cli
let sandbox: Sandbox
sandboxForFile([], (started, user) => {
  sandbox = started
  cli = user
})

/** Runs opsctl in a pseudo-terminal of `cols` columns; stdout and stderr both arrive on the terminal. */
function inTerminal(argv: string[], cols: number, env: Record<string, string> = cli.env): Promise<{code: number; screen: string}> {
  const quoted = [process.execPath, BIN, ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `stty cols ${cols}; ${quoted}`, '/dev/null'], {env: {...baseEnv(), ...env}})
    let screen = ''
    child.stdout.on('data', (d) => (screen += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? 1, screen}))
  })
}

describe('events list in a terminal and in a pipe', () => {
  it('fits 80 columns without boxes; piped it is tab-separated with a header', async () => {
    const created = await cli.run(
      ['users', 'create', '--type', 'patient', '--email', 'tty@example.com', '--given-name', 'T', '--family-name', 'Y', '--time-zone', 'Asia/Manila', '--password-stdin'],
      {input: 'tty-Pass-4k2m'},
    )
    expect(created.code, created.stderr).toBe(0)
    for (const date of ['2026-03-01T15:30:00Z']) {
      const added = await cli.run(['events', 'add', 'me', '--date', date, '--medication-id', 'med-salbutamol', '--medication-type', 'rescue', '--symptom', 'cough,wheeze', '--address', 'a long street name in a city far away', '--no-plan-check'])
      expect(added.code, added.stderr).toBe(0)
    }

    const {code, screen} = await inTerminal(['events', 'list', 'me', '--columns', 'id,date,medicationId,symptoms,address,nightEvent'], 80)
    expect(code, screen).toBe(0)
    // The columns chosen do not all fit: the ones of lowest priority are left out (the medication id stays whole), and said so on stderr.
    const note = 'Left out 2 columns to fit 80: see them with --columns id,address,nightEvent'
    expect(screen).toContain(note)
    const lines = screen.split(/\r?\n/).filter((l) => l && l !== note)
    expect(lines[0]).toMatch(/^id +date +medicationId +symptoms$/)
    expect(lines[1]).toMatch(/ med-salbutamol {2}cough, wheeze$/)
    expect(lines).toHaveLength(2)
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80)
    expect(screen).not.toMatch(/[┌│─┼]/)
    // 15:30Z is 23:30 in the user's zone (Asia/Manila); the time is whole, without its year when short of room
    expect(screen).toContain('03-01 23:30 +08:00')

    const piped = await cli.run(['events', 'list', 'me', '--columns', 'id,date,symptoms'])
    const rows = piped.stdout.trimEnd().split('\n')
    expect(rows[0]).toBe('id\tdate\tsymptoms')
    expect(rows).toHaveLength(2)
    for (const row of rows.slice(1)) expect(row).toMatch(/^\w+\t2026-03-0\dT\d\d:\d\d:00\.000\+08:00\tcough;wheeze$/)
  })

  it('--all: the progress line is cleared before each page of rows, so no row continues it', async () => {
    const {id} = await cli.json(['users', 'create', '--type', 'patient', '--email', 'pages@example.com', '--given-name', 'P', '--family-name', 'G', '--password-stdin'], {input: 'pages-Pass-8v3n'})
    await sandbox.control('health/events', {count: 120, userId: id})
    const {code, screen} = await inTerminal(['events', 'list', 'me', '--all', '--columns', 'id,source'], 80)
    expect(code, screen).toBe(0)
    // What a line shows at the end: the text after its last carriage return and erase-line.
    const shown = screen.split('\n').map((line) => line.replace(/\r$/, '').split(/\r(?:\u001B\[2K)?/).at(-1)!).filter(Boolean)
    expect(shown[0]).toMatch(/^id +source$/)
    expect(shown.slice(1).filter((line) => !/^[\da-f]{24} +\w+$/.test(line))).toEqual([])
    expect(shown).toHaveLength(121)
  })
})

describe('control characters a service sends are shown escaped', () => {
  // Set by whoever created the checkout: it retitles the window and clears the screen when printed raw.
  const REF = 'REF\u001B]0;pwned\u0007\u001B[2J\u202Eevil'
  const SHOWN = String.raw`REF\e]0;pwned\x07\e[2J\u202eevil`
  /** What a terminal would act on: ESC, BEL, the other C0 controls but tab/newline/CR, DEL, C1, bidi controls. */
  const RAW = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/
  const record = {
    id: 'chk_evil',
    totalAmount: {value: '10.00', currency: 'PHP'},
    requestReferenceNumber: REF,
    status: 'PENDING_PAYMENT',
    paymentStatus: 'PENDING_TOKEN',
    buyer: {firstName: 'Ana\u001B[8m', lastName: 'Cruz\tTab\nLine'},
    createdAt: '2026-11-21T02:00:00.000Z',
    updatedAt: '2026-11-21T02:00:00.000Z',
  }
  const servers = new LoopbackServers()
  let env: Record<string, string>
  let configDir: string

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'opsctl-tty-'))
    const origin = await servers.listen(
      createServer((req, res) => {
        if (req.url?.endsWith('/chk_evil')) res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(record))
        else res.writeHead(404, {'content-type': 'application/json'}).end(JSON.stringify({code: 'PY0044', message: `No checkout ${REF}`}))
      }),
    )
    env = {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-tty-Canary-6', OPSCTL_CHECKOUT_URL: `${origin}/checkout`, OPSCTL_CONFIG_DIR: configDir}
  })

  afterAll(async () => {
    await servers.closeAll()
    rmSync(configDir, {force: true, recursive: true})
  })

  it('checkout get in a terminal: the record and the Error line escape them', async () => {
    const shown = await inTerminal(['checkout', 'get', 'chk_evil', '--no-truncate', '--columns', 'id,requestReferenceNumber,buyer'], 200, env)
    expect(shown.code, shown.screen).toBe(0)
    expect(shown.screen).not.toMatch(RAW)
    expect(shown.screen).toContain(`requestReferenceNumber  ${SHOWN}`)
    expect(shown.screen).toContain(String.raw`"firstName":"Ana\u001b[8m"`)

    const failed = await inTerminal(['checkout', 'get', 'chk_other'], 200, env)
    expect(failed.code).toBe(4)
    expect(failed.screen).not.toMatch(RAW)
    expect(failed.screen).toContain(`Error: No checkout ${SHOWN}`)
  })

  it('piped: TSV and CSV escape them and keep one line per record field; --json keeps the exact value', async () => {
    const columns = ['--columns', 'id,requestReferenceNumber']
    const tsv = await runCli(['checkout', 'get', 'chk_evil', ...columns], {env})
    expect(tsv.code, tsv.stderr).toBe(0)
    expect(tsv.stdout).toBe(`id\tchk_evil\nrequestReferenceNumber\t${SHOWN}\n`)
    const csv = await runCli(['checkout', 'get', 'chk_evil', ...columns, '-o', 'csv'], {env})
    expect(csv.stdout).toBe(`id,requestReferenceNumber\nchk_evil,${SHOWN}\n`)
    const buyer = await runCli(['checkout', 'get', 'chk_evil', '--query', 'buyer'], {env})
    expect(buyer.stdout).toBe(`firstName\t${String.raw`Ana\e[8m`}\nlastName\t${String.raw`Cruz\tTab\nLine`}\n`)
    const json = await runCli(['checkout', 'get', 'chk_evil', '--json'], {env})
    expect(JSON.parse(json.stdout)).toMatchObject({requestReferenceNumber: REF, buyer: record.buyer})
    const failed = await runCli(['checkout', 'get', 'chk_other'], {env})
    expect(failed.stderr).not.toMatch(RAW)
    expect(JSON.parse((await runCli(['checkout', 'get', 'chk_other', '--json'], {env})).stderr).error.serverMessage).toBe(`No checkout ${REF}`)
  })
})
