/**
 * The logs read from their newest end (src/audit/read.ts): the lines are the file's lines whatever
 * the chunks' edges cut (a multi-byte character included), a last line still being written is
 * skipped, the time range and --limit keep what a filter of every line would keep, and a line
 * written while the clock was behind is still found. And `audit access --since 1h` on a big log.
 */
import {execFileSync} from 'node:child_process'
import {appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeEach, describe, expect, it} from 'vitest'
import * as z from 'zod'

import {createdCheckouts, newestCreated} from '../../src/audit/history.js'
import {damagedWarning, linesFromEnd, OUT_OF_ORDER_MARGIN_MS, readAudit, readJsonLines} from '../../src/audit/read.js'
import AuditAccess from '../../src/commands/audit/access.js'
import AuditList from '../../src/commands/audit/list.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, {force: true, recursive: true})
})

function tempFile(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'opsctl-recent-'))
  dirs.push(dir)
  const file = join(dir, 'log.jsonl')
  writeFileSync(file, content)
  return file
}

async function linesOf(file: string, chunk: number): Promise<(string | undefined)[]> {
  const lines: (string | undefined)[] = []
  for await (const line of linesFromEnd(file, chunk)) lines.push(line.text)
  return lines.reverse()
}

const Line = z.looseObject({time: z.string(), n: z.number()})
type Line = z.infer<typeof Line>
const H = 3_600_000
const T = Date.parse('2026-11-21T12:00:00.000Z')
const at = (ms: number, n: number): string => JSON.stringify({time: new Date(ms).toISOString(), n}) + '\n'
const ns = (entries: Line[]): number[] => entries.map((e) => e.n)

describe('the lines of a file read from its end', () => {
  it('are the same lines, in order, wherever the chunks cut them', async () => {
    const lines = ['{"a":1}', '', 'a longer line of text, with spaces', 'x', '{"b":[1,2,3]}']
    const file = tempFile(lines.join('\n') + '\n')
    for (let chunk = 1; chunk <= 40; chunk++) expect(await linesOf(file, chunk), `chunk of ${chunk}`).toEqual(lines)
  })

  it('joins a character of several bytes that a chunk edge splits', async () => {
    const lines = ['café', '日本語のテキスト', 'emoji 🫁 and ñ', 'Ωmega']
    const file = tempFile(lines.join('\n') + '\n')
    for (let chunk = 1; chunk <= 12; chunk++) expect(await linesOf(file, chunk), `chunk of ${chunk}`).toEqual(lines)
  })

  it('marks the last line without its newline, and reads nothing from an empty file', async () => {
    const file = tempFile('one\ntwo')
    const read = []
    for await (const line of linesFromEnd(file, 3)) read.push(line)
    expect(read).toEqual([
      {fromEnd: 1, text: 'two', unterminated: true},
      {fromEnd: 2, text: 'one'},
    ])
    expect(await linesOf(tempFile(''), 4)).toEqual([])
  })

  it('gives no text for a line longer than the bound, and goes on past it', async () => {
    const file = tempFile(`first\n${'x'.repeat(70_000)}\nlast\n`)
    expect(await linesOf(file, 1000)).toEqual(['first', undefined, 'last'])
  })
})

describe('entries read from the newest end', () => {
  it('from an empty or missing file: none, and the file says it holds none', async () => {
    expect(await readJsonLines(tempFile(''), Line, {since: T})).toEqual({entries: [], damaged: [], empty: true})
    expect(await readJsonLines(join(tmpdir(), 'opsctl-no-such-dir', 'log.jsonl'), Line)).toEqual({entries: [], damaged: [], empty: true})
  })

  it('skips a last line still being written without a word, and keeps one that is whole', async () => {
    const file = tempFile(at(T, 1) + at(T + 1, 2) + '{"time":"2026-11-21T12:00:0')
    expect(await readJsonLines(file, Line)).toEqual({
      entries: [expect.objectContaining({n: 1}), expect.objectContaining({n: 2})],
      damaged: [],
      empty: false,
    })
    appendFileSync(file, '0.002Z","n":3}')
    expect(ns((await readJsonLines(file, Line)).entries)).toEqual([1, 2, 3])
  })

  it('keeps --since inclusive and --until exclusive, as a filter of every line does', async () => {
    const file = tempFile([-2 * H, -H, -1, 0, 1, H - 1, H, 2 * H].map((d, i) => at(T + d, i)).join(''))
    expect(ns((await readJsonLines(file, Line, {since: T})).entries)).toEqual([3, 4, 5, 6, 7])
    expect(ns((await readJsonLines(file, Line, {until: T})).entries)).toEqual([0, 1, 2])
    expect(ns((await readJsonLines(file, Line, {since: T, until: T + H})).entries)).toEqual([3, 4, 5])
    expect(ns((await readJsonLines(file, Line, {since: T + 3 * H})).entries)).toEqual([])
  })

  it('keeps the newest N with --limit (after the other filters), oldest first', async () => {
    const file = tempFile(Array.from({length: 10}, (_, i) => at(T + i, i)).join(''))
    expect(ns((await readJsonLines(file, Line, {limit: 3})).entries)).toEqual([7, 8, 9])
    expect(ns((await readJsonLines(file, Line, {limit: 3, match: (e) => e.n % 2 === 0})).entries)).toEqual([4, 6, 8])
    expect(ns((await readJsonLines(file, Line, {limit: 4, until: T + 5})).entries)).toEqual([1, 2, 3, 4])
    expect(ns((await readJsonLines(file, Line, {limit: 20, since: T + 8})).entries)).toEqual([8, 9])
  })

  it('finds a line written while the clock was behind, past an older one', async () => {
    // The clock set back five hours after line 1, then on; lines 2 and 3 carry times before --since.
    const lines = [at(T - 3 * 24 * H, 0), at(T + 10 * 60_000, 1), at(T - 5 * H, 2), at(T - 4 * H, 3), at(T + 5 * 60_000, 4)]
    const file = tempFile(lines.join(''))
    expect(ns((await readJsonLines(file, Line, {since: T})).entries)).toEqual([1, 4])
    // Up to the margin: a line further out of order than it, older than since by more, ends the read.
    const far = tempFile([at(T + 1, 0), at(T - OUT_OF_ORDER_MARGIN_MS - 1, 1), at(T + 2, 2)].join(''))
    expect(ns((await readJsonLines(far, Line, {since: T})).entries)).toEqual([2])
  })

  it('names a damaged line by its number from the start when it read back to the start, else from the end', async () => {
    const file = tempFile(at(T - 3 * 24 * H, 0) + 'not json\n' + at(T, 1) + '{"time": 5}\n' + at(T + 1, 2))
    const whole = await readJsonLines(file, Line)
    expect(ns(whole.entries)).toEqual([0, 1, 2])
    expect(whole.damaged).toEqual([
      {line: 2, why: 'not JSON (a torn write?)'},
      {line: 4, why: 'time: of the wrong type'},
    ])
    const recent = await readJsonLines(file, Line, {since: T})
    expect(ns(recent.entries)).toEqual([1, 2])
    expect(recent.damaged).toEqual([
      {line: 4, why: 'not JSON (a torn write?)', fromEnd: true},
      {line: 2, why: 'time: of the wrong type', fromEnd: true},
    ])
    expect(damagedWarning('/c/log.jsonl', recent.damaged)).toBe(
      'Warning: skipped 2 damaged line(s) of /c/log.jsonl: line 4 from the end (not JSON (a torn write?)), line 2 from the end (time: of the wrong type); the rest is shown',
    )
  })
})

describe('a line of the margin', () => {
  it('is passed over by the time it starts with, unread: damage past its time is not the answer\'s', async () => {
    // torn after the time, as a crash mid-write leaves a line: two hours before --since, then inside the range
    const torn = (ms: number) => `{"time":"${new Date(ms).toISOString()}","n":`
    const file = tempFile([at(T - 3 * 24 * H, 0), torn(T - 2 * H) + '\n', at(T - H, 1), torn(T + 1) + '\n', at(T + 2, 2)].join(''))
    const recent = await readJsonLines(file, Line, {since: T})
    expect(ns(recent.entries)).toEqual([2])
    expect(recent.damaged).toEqual([{line: 2, why: 'not JSON (a torn write?)', fromEnd: true}])
    // with --until too: a line after it is passed over the same way
    const until = await readJsonLines(file, Line, {since: T - 90 * 60_000, until: T})
    expect(ns(until.entries)).toEqual([1])
    expect(until.damaged).toEqual([])
    // read whole (no range), every line is parsed and checked
    expect((await readJsonLines(file, Line)).damaged.map((d) => d.line)).toEqual([2, 4])
  })

  it('is read whole when it does not start as opsctl writes (another writer\'s key order, spaces)', async () => {
    const lines = [at(T - 2 * H, 0), '{"n": 1, "time": "' + new Date(T + 1).toISOString() + '"}\n', '{ "time": "' + new Date(T + 2).toISOString() + '", "n": 2 }\n']
    expect(ns((await readJsonLines(tempFile(lines.join('')), Line, {since: T})).entries)).toEqual([1, 2])
  })
})

describe('a log that is not a regular file', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it('is one line naming it, exit 2, never a wait: a FIFO, a symbolic link, a folder', async () => {
    mkdirSync(h.configDir, {recursive: true})
    const access = join(h.configDir, 'access.jsonl')
    const audit = join(h.configDir, 'audit.jsonl')
    // a FIFO opened for reading waits for a writer: without O_NONBLOCK this test never ends
    execFileSync('mkfifo', ['-m', '600', access])
    const fifo = await h.run(AuditAccess, ['--since', '1h'])
    expect(fifo.code).toBe(2)
    expect(fifo.stderr.trim()).toBe(`Error: Cannot read ${access}: it is not a regular file`)

    const real = join(h.configDir, 'elsewhere.jsonl')
    writeFileSync(real, at(Date.now(), 1))
    symlinkSync(real, audit)
    const linked = await h.run(AuditList, [])
    expect(linked.code).toBe(2)
    expect(linked.stderr.trim()).toBe(`Error: Cannot read ${audit}: it is a symbolic link, and opsctl reads its logs only from a real file`)

    rmSync(audit)
    mkdirSync(audit)
    const folder = await h.run(AuditList, ['--json'])
    expect(folder.code).toBe(2)
    expect(folder.stdout).toBe('')
    // --json: the error as JSON on stderr
    expect(JSON.parse(folder.stderr)).toEqual({error: {exitCode: 2, message: `Cannot read ${audit}: it is not a regular file`, name: 'UsageError'}})
  })
})

describe("the newest checkouts created, read from the log's end", () => {
  it('are those a read of every line lists, with their later voids and refunds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-recent-'))
    dirs.push(dir)
    const line = (ms: number, operation: string, checkoutId: string, extra: object = {}): string =>
      JSON.stringify({
        time: new Date(ms).toISOString(),
        profile: 'shop',
        env: 'sandbox',
        operation,
        outcome: 'applied',
        checkoutId,
        ...extra,
      }) + '\n'
    const lines = Array.from({length: 300}, (_, i) =>
      line(T + i * H, 'initiateCheckout', `chk_${i}`, {amount: {value: '10.00', currency: 'PHP'}}),
    )
    // A refund of an old checkout late in the log, a creation written with a clock two hours behind, and a smoke run's.
    lines.push(
      line(T + 300 * H, 'refundCheckout', 'chk_297', {amount: {value: '4.00'}}),
      line(T + 297 * H, 'initiateCheckout', 'chk_late'),
      line(T + 301 * H, 'initiateCheckout', 'chk_smoke', {run: 'smoke-1'}),
      line(T + 302 * H, 'voidCheckout', 'chk_299'),
    )
    writeFileSync(join(dir, 'audit.jsonl'), lines.join(''))
    const all = createdCheckouts((await readAudit(dir)).entries, 'shop')
    for (const count of [1, 3, 5]) {
      const read = await readAudit(dir, {enough: newestCreated(count, OUT_OF_ORDER_MARGIN_MS, 'shop')})
      expect(read.entries.length, `count ${count}`).toBeLessThan(40)
      expect(createdCheckouts(read.entries, 'shop').slice(0, count)).toEqual(all.slice(0, count))
    }

    expect(all.slice(0, 5).map((c) => [c.checkoutId, c.state])).toEqual([
      ['chk_299', 'voided'],
      ['chk_298', 'created'],
      // the same time as chk_297, written after it
      ['chk_late', 'created'],
      ['chk_297', 'refunded 4.00'],
      ['chk_296', 'created'],
    ])
  })
})

describe('audit access --since 1h on a year of reads', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it('shows exactly the reads of the last hour, oldest first', async () => {
    const now = Date.now()
    // 200,000 reads 2.5 minutes apart (347 days), each half a step off the minute: --since 1h falls
    // 75 s from the nearest line, more than the command takes to start.
    const step = 150_000
    const count = 200_000
    const lines: string[] = []
    const expected: string[] = []
    for (let i = 0; i < count; i++) {
      // In time order, but every 997th line written with a clock 20 minutes behind, and one of 74
      // minutes ago with a clock 20 minutes ahead: it is in the hour, before six lines that are not.
      const skew = i % 997 === 0 ? -20 * 60_000 : i === count - 30 ? 20 * 60_000 : 0
      const time = now - (count - i - 0.5) * step + skew
      const entry = {
        time: new Date(time).toISOString(),
        profile: 'desk',
        env: 'production',
        signedInUser: 'u-me',
        user: `u-${i}`,
        command: 'users get',
        reason: `ticket ${i}`,
      }
      lines.push(JSON.stringify(entry))
      if (time >= now - H) expected.push(entry.user)
    }

    writeFileSync(join(h.configDir, 'access.jsonl'), lines.join('\n') + '\n')
    const r = await h.run(AuditAccess, ['--since', '1h', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const users = (JSON.parse(r.stdout) as {entries: {user: string}[]}).entries.map((e) => e.user)
    expect(expected).toEqual([`u-${count - 30}`, ...Array.from({length: 24}, (_, k) => `u-${count - 24 + k}`)])
    expect(users).toEqual(expected)
  })
})
