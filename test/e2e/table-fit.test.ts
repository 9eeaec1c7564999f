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
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {layoutOf, listOf, type View} from '../../src/cli/output/view.js'
import RefundCreate from '../../src/commands/refund/create.js'
import {getPath} from '../../src/services/dot-path.js'
import {listingCommands} from '../fixtures/listing-commands.js'
import {runCommand, type Runnable} from '../helpers/command.js'
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
    const shown = screen.lines[0].split(/ {2,}/)
    for (const row of rows) {
      // Support reads when, and the symptoms; the 24-character id gives way first at 80 (the note brings it back).
      if (shown.includes('id')) expect(row).toMatch(/^[\da-f]{24} /)
      expect(row).toMatch(FULL_DATE)
      expect(row).toContain('wokenAtNight, cough, wheeze')
    }

    if (shown.length < EVENT_HEADERS.length) expect(screen.stderr).toMatch(/^Left out/m)
    if (!shown.includes('id')) expect(screen.stderr).toMatch(/--columns\s+\S*\bid\b/)
  })

  it('audit list: time, operation, outcome and the amount whole; the checkout id too when there is room', async () => {
    if (cols === 80) {
      const created = await cli.json(['checkout', 'create', '--amount', '10.00', '--success-url', 'https://shop.example/ok'])
      const voided = await cli.run(['checkout', 'void', created.checkoutId ?? created.id, '--reason', 'the customer changed their mind about the colour', '--yes'])
      expect(voided.stderr).not.toBe('')
    }

    const screen = await inTerminal(['audit', 'list'], cols)
    expectFits(screen, cols, ['time', 'profile', 'operation', 'outcome', 'status', 'code', 'amount.value', 'amount.currency', 'reason', 'checkoutId', 'refundId', 'webhookId'])
    // What happened to which checkout and how much, whole; the time when there is room for it (else the note names it).
    expect(screen.lines[0]).toMatch(/(?:^| )operation {2}.*outcome {2}.* checkoutId(?: |$)/)
    // The amount: a column, or said once when every row has the same
    if (!/ amount\.value(?: |$)/.test(screen.lines[0])) expect(screen.stderr).toMatch(/^Left out, the same on every row: .*amount\.value = /m)
    expect(screen.lines.filter((l) => /(?:^| )initiateCheckout /.test(l))).not.toEqual([])
    for (const row of screen.lines.filter((l) => l.includes('chk_'))) expect(row).toMatch(/ chk_[\da-f]{24}(?: |$)/)
    if (screen.lines[0].startsWith('time ')) for (const row of screen.lines.slice(1)) expect(row).toMatch(/^\S*\d{2}-\d{2} \d{2}:\d{2} (?:UTC|[+-]\d{2}:\d{2}) /)
    else expect(screen.stderr).toMatch(/^Left out, the same on every row: time = |--columns\s+checkoutId,\S*time/m)
  })

  it('checkout list', async () => {
    const screen = await inTerminal(['checkout', 'list'], cols)
    expectFits(screen, cols, ['checkoutId', 'amount', 'currency', 'state', 'stateAt', 'createdAt', 'reference', 'lastAttempt', 'lastAttemptAt', 'source'])
    expect(screen.lines.length).toBeGreaterThan(1)
    expect(screen.lines[0]).toMatch(/^checkoutId {2,}amount {2,}.*state {2,}stateAt /)
    for (const row of screen.lines.slice(1)) expect(row).toMatch(/^chk_[\da-f]{24} /)
  })

  it('webhook listen --register: each delivery one line within the terminal, at the sandbox\'s time in PH time', async () => {
    // The sandbox's clock days ahead of this machine's (at 120, the last use of the first user's session here).
    if (cols === 120) expect((await cli.run(['sandbox', 'clock', '--advance', '72h'])).code).toBe(0)
    const sandboxNow = new Date((await cli.json(['sandbox', 'clock'])).now)
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
    const day = new Intl.DateTimeFormat('en-CA', {day: '2-digit', month: '2-digit', timeZone: 'Asia/Manila'}).format(sandboxNow)
    expect(row).toMatch(new RegExp(`^(?:\\d{4}-)?${day} \\d{2}:\\d{2} \\+08:00 `))
  })
})

describe('test reports (smoke, scenario run) at 80 and at 120 columns', () => {
  it('scenario run: the failed step is named (whole when the request id leaves room), with its message whole', async () => {
    const file = join(dir, 'fails.yaml')
    writeFileSync(file, 'steps:\n  - run: opsctl checkout get chk-not-there-at-all\n  - run: opsctl profile list\n')
    for (const cols of [80, 120]) {
      const screen = await inTerminal(['scenario', 'run', file], cols)
      expect(screen.code).toBe(1)
      expectFits({...screen, code: 0}, cols, ['suite', 'name', 'operation', 'outcome', 'ms', 'detail'])
      // The reason is never cut: it continues on the next lines, in its column.
      const at = screen.lines.findIndex((l) => l.includes('failed'))
      const detail = screen.lines[0].indexOf('detail')
      const reason = [screen.lines[at], ...screen.lines.slice(at + 1).filter((l) => l.slice(0, detail).trim() === '')].map((l) => l.slice(detail).trim()).join(' ')
      // The request id in the reason stays on one line; at 80 columns the step's name (free text) gives it the room.
      expect(screen.lines[at]).toMatch(cols === 80 ? /checkout get chk-not-there-at-a… +failed / : /checkout get chk-not-there-at-all .*failed /)
      expect(screen.lines.some((l) => /(?:^| )[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}\]/.test(l.slice(detail)))).toBe(true)
      expect(reason).toMatch(/^Checkout chk-not-there-at-all not found.* \(exit 4, expected 0\)$/)
    }
  })

  it('smoke --sandbox: at 120 columns every step name and request id whole', async () => {
    for (const cols of [80, 120]) {
      const screen = await inTerminal(['smoke', '--sandbox'], cols)
      expectFits(screen, cols, ['suite', 'name', 'operation', 'outcome', 'ms', 'detail'])
      // Every step passed: the outcome reads the same on every row, so it is said once instead.
      if (screen.lines[0].includes(' outcome ')) expect(screen.lines.filter((l) => /\bpassed\b/.test(l))).toHaveLength(31)
      else expect(screen.stderr).toMatch(/^Left out, the same on every row: .*outcome = passed/m)
      expect(screen.lines.slice(1).filter((l) => /^(?:health|checkout) /.test(l))).toHaveLength(31)
      if (cols === 120) {
        expect(screen.lines.filter((l) => l.includes('…'))).toEqual([])
        expect(screen.lines.filter((l) => /[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/.test(l)).length).toBeGreaterThan(20)
      }
    }
  })
})

/**
 * Every listing command (found from the views, as the output contract test finds them), in-process
 * with stdout and stderr a terminal 80 and 120 columns wide, against this file's sandbox: what a
 * real terminal adds is covered by the runs above. Content, not only width: every line (stderr too)
 * fits; headers whole; no cell of a whole column (ids, names, enums, dates, amounts) cut; every id
 * of the document whole on screen, or its column named in the "Left out" note.
 */
describe('every listing command at 80 and 120 columns: what a person reads or copies is whole', () => {
  const ARGV: Record<string, string[]> = {
    'audit access': [],
    'audit list': [],
    'checkout list': [],
    'events list': ['me'],
    'groups config': ['demo-clinic'],
    'metrics get': ['me', '--name', 'eventsRescue,eventsRescueNight,eventsRescueNightManual,eventsControllerAdministered', '--period', 'daily'],
    'plan show': ['me'],
    'profile check': [],
    'profile list': [],
    'refund list': [],
    'sandbox tenant list': [],
    'webhook deliveries': [],
    'webhook list': [],
  }
  const ELSEWHERE: Record<string, string> = {
    'checkout reconcile': 'in test/e2e/checkout-reconcile.test.ts (its rows come from the shop\'s file), and in the merchant\'s journey at 80 columns',
    'sandbox diff': 'in test/commands/sandbox-diff.test.ts (it compares two sandboxes)',
    'scenario run': 'above, in a real terminal',
    smoke: 'above, in a real terminal',
  }
  let listings: Map<string, Runnable & {view?: View}>
  let env: Record<string, string>

  beforeAll(async () => {
    listings = new Map(await listingCommands()) as Map<string, Runnable & {view?: View}>
    env = cli.env
    const ok = async (argv: string[], input?: string) => {
      const r = await cli.run(argv, input === undefined ? {} : {input})
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
      return r
    }

    const paid = JSON.parse((await ok(['checkout', 'create', '--amount', '1250.00', '--success-url', 'https://shop.example/ok', '--json'])).stdout)
    const paidId = paid.checkoutId ?? paid.id
    await ok(['checkout', 'pay', paidId])
    // Refunds open the day after the payment (before that it is a void); signing in comes after, on the new day.
    await ok(['sandbox', 'clock', '--advance', '25h'])
    await ok(['users', 'create', '--type', 'patient', '--email', 'wide@example.com', '--given-name', 'W', '--family-name', 'D', '--time-zone', 'Asia/Manila', '--password-stdin'], 'wide-Pass-4k2m')
    await ok(['plan', 'medication', 'add', 'me', '--medication-id', 'med-salbutamol', '--sensor', 'AA:BB:CC:DD:EE:01=hfa-sensor'])
    for (const [date, type, symptoms] of [['2026-11-23T17:30:00Z', 'rescue', 'wokenAtNight,cough,wheeze'], ['2026-11-24T03:10:00Z', 'controller', 'cough']]) {
      await ok(['events', 'add', 'me', '--date', date, '--medication-id', type === 'rescue' ? 'med-salbutamol' : 'med-fluticasone', '--medication-type', type, '--symptom', symptoms, '--trigger', 'dust,exercise', '--no-plan-check'])
    }

    for (const name of ['CHECKOUT_SUCCESS', 'CHECKOUT_FAILURE', 'CHECKOUT_DROPOUT']) {
      await ok(['webhook', 'register', '--name', name, '--url', `https://shop.example/hooks/paymaya/notifications/${name.toLowerCase()}`])
    }

    await ok(['refund', 'create', paidId, '--amount', '250.00', '--reason', 'one of the two items came back damaged in the post', '--yes'])
    ARGV['refund list'] = [paidId]
    await ok(['sandbox', 'tenant', 'create'])
  }, 120_000)

  it('runs every listing command its view declares (or says where it is checked)', () => {
    expect([...listings.keys()].filter((id) => !(id in ARGV) && !(id in ELSEWHERE))).toEqual([])
  })

  describe.each([80, 120])('%i columns', (cols) => {
    it.each(Object.keys(ARGV))('%s', async (id) => {
      const Cmd = listings.get(id)!
      const argv = ARGV[id]
      const screen = await runCommand(Cmd, argv, {env, terminal: cols})
      // profile check exits with what the checks found; the table is the point here.
      if (id !== 'profile check') expect(screen.code, screen.stderr).toBe(0)
      const document = await runCommand(Cmd, [...argv, '--json'], {env})
      expect(document.stdout, document.stderr).not.toBe('')
      expectWhole(screen.stdout, screen.stderr, cols, Cmd.view ?? {}, JSON.parse(document.stdout))
      // A document of two tables titles the second one.
      if (id === 'groups config') expect(screen.stdout).toMatch(/^medications \(\d+\):$/m)
    })

    it('a refused bulk row: its reason whole, its checkout id whole', async () => {
      const voided = JSON.parse((await cli.run(['checkout', 'create', '--amount', '10.00', '--success-url', 'https://shop.example/ok', '--json'])).stdout)
      const voidedId = voided.checkoutId ?? voided.id
      await cli.run(['checkout', 'pay', voidedId])
      expect((await cli.run(['checkout', 'void', voidedId, '--reason', 'duplicate order', '--yes'])).code).toBe(0)
      const file = join(dir, `bulk-${cols}.csv`)
      writeFileSync(file, `checkoutId,amount,currency,reason\n${voidedId},5.00,PHP,the parcel never arrived at the address given\n`)
      const screen = await runCommand(RefundCreate, ['--from-file', file, '--yes'], {env, terminal: cols})
      expect(screen.code, screen.stderr).toBe(5)
      const results = JSON.parse((await runCommand(RefundCreate, ['--from-file', file, '--yes', '--json'], {env})).stdout).results
      const reason: string = results[0].message
      expect(reason).not.toMatch(/^checkout /i)
      for (const line of [...screen.stdout.split('\n'), ...screen.stderr.split('\n')]) expect(stringWidth(line), line).toBeLessThanOrEqual(cols)
      const lines = screen.stdout.trimEnd().split('\n')
      const at = lines[0].indexOf('message')
      expect(at, lines[0]).toBeGreaterThan(0)
      expect(lines.slice(1).map((l) => l.slice(at).trim()).join(' ')).toBe(reason)
      expect(lines[1]).toContain(` ${voidedId} `)
    })
  })
})

/** The cells of a table printed in a terminal: each column from its header's offset to the next one's. */
function cellsOf(lines: string[]): {cells: string[][]; names: string[]} {
  const header = lines[0]
  const starts = [...header.matchAll(/\S+/g)].map((m) => m.index!)
  const names = starts.map((start, i) => header.slice(start, starts[i + 1]).trim())
  const cells = lines.slice(1).map((line) => starts.map((start, i) => line.slice(start, i + 1 < starts.length ? starts[i + 1] - 2 : undefined).trim()))
  return {cells, names}
}

function expectWhole(stdout: string, stderr: string, cols: number, view: View, document: unknown): void {
  for (const line of [...stdout.split('\n'), ...stderr.split('\n')]) expect(stringWidth(line), line).toBeLessThanOrEqual(cols)
  // A document with fields first (groups config): its list is the table after the title.
  const all = stdout.trimEnd().split('\n')
  const title = all.findIndex((l) => /^\S+ \(\d+\):$/.test(l))
  const lines = title === -1 ? all : all.slice(title + 1)
  const {cells, names} = cellsOf(lines)
  expect(lines[0]).not.toContain('…')
  const layout = layoutOf(view)
  const columns = view.columns ?? names
  for (const name of names) expect(columns, lines[0]).toContain(name)
  for (const [i, name] of names.entries()) {
    const kind = layout[name]?.kind
    if (kind === 'text' || kind === 'reason') continue
    for (const row of cells) expect(row[i], `${name} cut in ${lines.join('\n')}`).not.toMatch(/…$/)
  }

  const rows = listOf(document, view) ?? []
  for (const [name, declared] of Object.entries(layout)) {
    if (declared.kind !== 'id') continue
    const values = rows.map((r) => getPath(r, name)).filter((v): v is string => typeof v === 'string' && v !== '')
    if (names.includes(name)) for (const value of values) expect(stdout).toContain(value)
    // Named in the note's --columns, or (when that would not fit) the note points to --no-truncate.
    else if (values.length > 0) expect(stderr, `${name} neither shown nor named`).toMatch(new RegExp(`\\b${name}\\b|--no-truncate`))
  }
}
