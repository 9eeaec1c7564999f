/**
 * Every screen that shows rows, read in a pseudo-terminal 80 and 120 columns wide (`script`,
 * `stty cols`): no line wider than the terminal, no header cut, every time whole, and at 120
 * columns no free-text cell cut while the line has room (issue 21). stderr goes to a file, so
 * the screen is stdout alone; the note naming left-out columns is read from that file.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import stringWidth from 'string-width'
import {afterAll, describe, expect, it} from 'vitest'

import {baseEnv, BIN, type Cli, ROOT, sandboxForFile} from './harness.js'

let cli: Cli
sandboxForFile([], (_sandbox, user) => {
  cli = user
})

const dir = mkdtempSync(join(tmpdir(), 'opsctl-table-fit-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

interface Screen {
  code: number
  lines: string[]
  stderr: string
}

/**
 * Runs opsctl with stdout on a pseudo-terminal `cols` wide and stderr in a file. `whileRunning`
 * gets the stderr read so far (to wait for "Listening on") and a way to type into the terminal.
 */
function inTerminal(argv: string[], cols: number, whileRunning?: (stderr: () => string, type: (text: string) => void) => Promise<void>): Promise<Screen> {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`
  const errFile = join(dir, `stderr-${cols}-${argv[0]}-${Math.random().toString(16).slice(2)}`)
  writeFileSync(errFile, '')
  const line = `stty cols ${cols} rows 50; exec ${[process.execPath, BIN, ...argv].map(quote).join(' ')} 2>${quote(errFile)}`
  const env: Record<string, string | undefined> = {...baseEnv(), ...cli.env, CI: undefined}
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k]
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', line, '/dev/null'], {cwd: ROOT, env: env as NodeJS.ProcessEnv})
    let screen = ''
    child.stdout.on('data', (d) => (screen += d))
    child.on('error', reject)
    child.on('close', (code) => {
      const lines = stripVTControlCharacters(screen).replaceAll('\r', '').split('\n')
      resolve({code: code ?? 1, lines: lines.filter((l) => l.trim() !== '' && l !== '^C'), stderr: readFileSync(errFile, 'utf8')})
    })
    whileRunning?.(() => readFileSync(errFile, 'utf8'), (text) => child.stdin.write(text)).catch(reject)
  })
}

/** What every table must be at any width: lines within it, headers whole, a cut cell only where the line is full. */
function expectFits(screen: Screen, cols: number, headers: string[]): void {
  expect(screen.code, screen.stderr).toBe(0)
  for (const line of screen.lines) expect(stringWidth(line), line).toBeLessThanOrEqual(cols)
  const header = screen.lines[0]
  expect(header).not.toContain('…')
  for (const name of header.split(/ {2,}/)) expect(headers, header).toContain(name)
  if (cols >= 120) {
    // A cell is cut only when its line has no room left.
    for (const line of screen.lines.filter((l) => l.includes('…'))) expect(stringWidth(line), line).toBe(cols)
  }
}

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = read()
    if (value !== undefined) return value
    await new Promise((r) => setTimeout(r, 50))
  }

  throw new Error(`waited 30 s for ${what}`)
}

const EVENT_HEADERS = ['id', 'date', 'medicationType', 'medicationId', 'source', 'doses', 'nightEvent', 'symptoms', 'triggers']
const FULL_DATE = /(?:^| )\d{4}-\d{2}-\d{2} \d{2}:\d{2} [+-]\d{2}:\d{2}(?: |$)/

describe.each([80, 120])('a terminal %i columns wide', (cols) => {
  it('events list: the id, the whole date and the symptoms of each night event', async () => {
    if (cols === 80) {
      const created = await cli.run(
        ['users', 'create', '--type', 'patient', '--email', 'fit@example.com', '--given-name', 'F', '--family-name', 'T', '--time-zone', 'Asia/Manila', '--password-stdin'],
        {input: 'fit-Pass-4k2m'},
      )
      expect(created.code, created.stderr).toBe(0)
      for (const date of ['2026-11-23T17:30:00Z', '2026-11-24T18:10:00Z']) {
        const added = await cli.run(['events', 'add', 'me', '--date', date, '--medication-id', 'med-salbutamol', '--medication-type', 'rescue', '--symptom', 'wokenAtNight,cough,wheeze', '--trigger', 'dust,exercise', '--no-plan-check'])
        expect(added.code, added.stderr).toBe(0)
      }
    }

    const screen = await inTerminal(['events', 'list', 'me', '--night', '--symptom', 'cough'], cols)
    expectFits(screen, cols, EVENT_HEADERS)
    const rows = screen.lines.slice(1)
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row).toMatch(/^[\da-f]{24} /)
      expect(row).toMatch(FULL_DATE)
      expect(row).toContain('wokenAtNight, cough, wheeze')
    }

    if (screen.lines[0].split(/ {2,}/).length < EVENT_HEADERS.length) expect(screen.stderr).toMatch(/^Left out to fit \d+ columns: .+ \(see them: --columns id,.+\)$/m)
  })

  it('audit list: time, operation, outcome and the amount whole; the checkout id too when there is room', async () => {
    if (cols === 80) {
      const created = await cli.json(['checkout', 'create', '--amount', '10.00', '--success-url', 'https://shop.example/ok'])
      const voided = await cli.run(['checkout', 'void', created.checkoutId ?? created.id, '--reason', 'the customer changed their mind about the colour', '--yes'])
      expect(voided.stderr).not.toBe('')
    }

    const screen = await inTerminal(['audit', 'list'], cols)
    expectFits(screen, cols, ['time', 'profile', 'operation', 'outcome', 'status', 'code', 'amount.value', 'amount.currency', 'reason', 'checkoutId', 'refundId', 'webhookId'])
    expect(screen.lines[0]).toMatch(/ operation {2}.* amount\.value(?: |$)/)
    if (cols >= 120) expect(screen.lines[0]).toMatch(/ checkoutId(?: |$)/)
    expect(screen.lines.filter((l) => / initiateCheckout /.test(l))).not.toEqual([])
    for (const row of screen.lines.filter((l) => l.includes('chk_'))) expect(row).toMatch(/ chk_[\da-f]{24}(?: |$)/)
    for (const row of screen.lines.slice(1)) expect(row).toMatch(/^\S*\d{2}-\d{2} \d{2}:\d{2} (?:UTC|[+-]\d{2}:\d{2}) /)
  })

  it('checkout list', async () => {
    const screen = await inTerminal(['checkout', 'list'], cols)
    expectFits(screen, cols, ['checkoutId', 'amount', 'currency', 'state', 'stateAt', 'createdAt', 'reference', 'lastAttempt', 'lastAttemptAt', 'source'])
    expect(screen.lines.length).toBeGreaterThan(1)
    expect(screen.lines[0]).toMatch(/^checkoutId {2,}amount {2,}.*state {2,}stateAt /)
    for (const row of screen.lines.slice(1)) expect(row).toMatch(/^chk_[\da-f]{24} /)
  })

  it('webhook listen --register: each delivery one line within the terminal', async () => {
    const screen = await inTerminal(['webhook', 'listen', '--register'], cols, async (stderr, type) => {
      const url = await until(() => /Listening on (\S+)/.exec(stderr())?.[1], 'the listener')
      const delivery = {
        id: 'f1c2d3e4-0000-4000-8000-00000000abcd',
        paymentStatus: 'PAYMENT_SUCCESS',
        status: 'COMPLETED',
        totalAmount: {currency: 'PHP', value: '1234567.89'},
      }
      const answer = await fetch(url, {body: JSON.stringify(delivery), headers: {'content-type': 'application/json'}, method: 'POST'})
      expect(answer.status).toBe(200)
      type('\u0003')
      await until(() => (stderr().includes('Put back') ? true : undefined), 'the webhooks put back')
    })
    expectFits(screen, cols, ['time', 'event', 'checkoutId', 'amount', 'status', 'answered', 'forwarded'])
    const row = screen.lines.find((l) => l.includes('CHECKOUT_SUCCESS'))
    expect(row).toContain('f1c2d3e4-0000-4000-8000-00000000abcd')
  })
})

describe('test reports (smoke, scenario run) at 80 and at 120 columns', () => {
  it('scenario run: the failed step is named whole, with its message', async () => {
    const file = join(dir, 'fails.yaml')
    writeFileSync(file, 'steps:\n  - run: opsctl checkout get chk-not-there-at-all\n  - run: opsctl profile list\n')
    for (const cols of [80, 120]) {
      const screen = await inTerminal(['scenario', 'run', file], cols)
      expect(screen.code).toBe(1)
      expectFits({...screen, code: 0}, cols, ['suite', 'name', 'operation', 'outcome', 'ms', 'detail'])
      expect(screen.lines.find((l) => l.includes('failed'))).toMatch(/checkout get chk-not-there-at-all .*failed .*exit 4/)
    }
  })

  it('smoke --sandbox: at 120 columns every step name and request id whole', async () => {
    for (const cols of [80, 120]) {
      const screen = await inTerminal(['smoke', '--sandbox'], cols)
      expectFits(screen, cols, ['suite', 'name', 'operation', 'outcome', 'ms', 'detail'])
      expect(screen.lines.filter((l) => /\bpassed\b/.test(l))).toHaveLength(31)
      if (cols === 120) {
        expect(screen.lines.filter((l) => l.includes('…'))).toEqual([])
        expect(screen.lines.filter((l) => /[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/.test(l)).length).toBeGreaterThan(20)
      }
    }
  })
})
