/**
 * Bulk refunds (issue 24) where the sandbox cannot say it: the service's 429 on a refund (the row
 * waits, is read again, then sent again: never resent blindly), the file's limits and its CSV, and
 * one run per journal. Against mocked services (test/helpers/command.ts).
 */
import {mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import RefundCreate from '../../src/commands/refund/create.js'
import {readLines} from '../../src/runtime/bulk/lines.js'
import {bulkShape} from '../../src/runtime/bulk/rows.js'
import {type InputRecord, readRecords} from '../../src/runtime/file-input.js'
import {BASE, checkoutRecord, dateHeader, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness
let folder: string
beforeEach(async () => {
  h = await commandHarness()
  folder = mkdtempSync(join(tmpdir(), 'opsctl-bulk-input-'))
})
afterEach(async () => {
  await h.close()
  rmSync(folder, {force: true, recursive: true})
})

const NEXT_DAY = '2026-11-21T16:00:00Z'

function reads(times: number) {
  h.pool.intercept({method: 'GET', path: `${BASE}/checkouts/chk_1`}).reply(200, checkoutRecord(), {headers: dateHeader(NEXT_DAY)}).times(times)
  h.pool.intercept({method: 'GET', path: `${BASE}/checkouts/chk_1/refunds`}).reply(200, [], {headers: JSON_HEADERS}).times(times)
}

function file(text: string): string {
  const path = join(folder, 'rows.csv')
  writeFileSync(path, text)
  return path
}

describe('a 429 answer to a refund', () => {
  it('waits its Retry-After, reads the checkout again, then sends once more: applied, two POSTs in all', async () => {
    // The plan's reads, the first attempt's, the second attempt's.
    reads(3)
    h.pool.intercept({method: 'POST', path: `${BASE}/checkouts/chk_1/refunds`}).reply(429, {code: 'RATE', message: 'slow down'}, {headers: {...JSON_HEADERS, 'retry-after': '2'}})
    h.pool.intercept({method: 'POST', path: `${BASE}/checkouts/chk_1/refunds`}).reply(200, {refundId: 'rfd_9', status: 'SUCCESS'}, {headers: JSON_HEADERS})
    const started = Date.now()
    const out = await h.run(RefundCreate, ['--from-file', file('checkoutId,amount,currency,reason\nchk_1,10.00,PHP,x\n'), '--yes', '--json'])
    expect(out.code, out.stderr).toBe(0)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
    expect(JSON.parse(out.stdout).results).toEqual([expect.objectContaining({outcome: 'applied', refundId: 'rfd_9'})])
    const calls = h.calls().map((c) => `${c.method} ${c.path.replace(`${BASE}/checkouts/chk_1`, '')}`)
    expect(calls).toEqual(['GET ', 'GET /refunds', 'GET ', 'GET /refunds', 'POST /refunds', 'GET ', 'GET /refunds', 'POST /refunds'])
  })
})

describe('the file', () => {
  it('refuses a file over the row limit, a line over the length limit, and a second run on the same journal (exit 2), sending nothing', async () => {
    const tooMany = await h.run(RefundCreate, ['--from-file', file('checkoutId\n' + 'chk_1\n'.repeat(50_001)), '--yes'])
    expect(tooMany.code).toBe(2)
    expect(tooMany.stderr).toContain('has more than 50,000 rows')
    const tooLong = await h.run(RefundCreate, ['--from-file', file('checkoutId,reason\nchk_1,' + 'x'.repeat(5000) + '\n'), '--yes'])
    expect(tooLong.code).toBe(2)
    expect(tooLong.stderr).toContain('line 2 is longer than 4096 characters')

    const path = file('checkoutId,amount,currency,reason\nchk_1,10.00,PHP,x\n')
    writeFileSync(`${path}.journal.lock`, String(process.pid))
    const locked = await h.run(RefundCreate, ['--from-file', path, '--yes'])
    expect(locked.code).toBe(2)
    expect(locked.stderr).toContain(`Another run (process ${process.pid}) is using the journal`)
    expect(h.calls()).toEqual([])
  })

  it('refuses a file of more than 50,000 rows before any request, as CSV, JSON lines and standard input', async () => {
    const ids = Array.from({length: 50_001}, (_, i) => `chk_${i}`)
    const csv = 'checkoutId,amount,currency,reason\n' + ids.map((id) => `${id},1.00,PHP,x\n`).join('')
    const jsonLines = ids.map((checkoutId) => `${JSON.stringify({amount: '1.00', checkoutId, currency: 'PHP', reason: 'x'})}\n`).join('')
    const journal = join(folder, 'stdin.journal')
    for (const argv of [['--from-file', file(csv)], ['--from-file', file(jsonLines)], ['--from-file', '-', '--journal', journal]]) {
       
      const out = await h.run(RefundCreate, [...argv, '--yes'], argv.includes('-') ? {stdin: jsonLines} : {})
      expect(out.code, out.stderr).toBe(2)
      expect(out.stderr).toContain('has more than 50,000 rows; split it into several files. Nothing was sent')
    }

    expect(h.calls()).toEqual([])
  })

  it('refuses a journal path that is a symbolic link (exit 2, why), sending nothing and writing nothing through it', async () => {
    const target = join(folder, 'precious.txt')
    writeFileSync(target, 'keep me\n')
    const link = join(folder, 'link.journal')
    symlinkSync(target, link)
    const out = await h.run(RefundCreate, ['--from-file', file('checkoutId,amount,currency,reason\nchk_1,10.00,PHP,x\n'), '--journal', link, '--yes'])
    expect(out.code, out.stderr).toBe(2)
    expect(out.stderr).toContain(`The journal ${link} is a symbolic link; a journal is written only to a real file`)
    expect(readFileSync(target, 'utf8')).toBe('keep me\n')
    expect(h.calls()).toEqual([])
  })

  it('reads CSV as RFC 4180: quotes, doubled quotes, commas and a line break inside a field; says what is wrong otherwise', async () => {
    const read = async (text: string) => {
      const records: InputRecord[] = []
      for await (const record of readRecords(Readable.from([Buffer.from(text)]), 'rows', bulkShape('refund'), {maxBytes: 10_000, maxRecordLength: 100, maxRows: 10})) records.push(record)
      return records
    }

    expect(await read('checkoutId,amount,currency,reason\nchk_1,"10.00",PHP,"broken, ""badly"""\nchk_2,,,\n')).toEqual([
      {fields: {amount: '10.00', checkoutId: 'chk_1', currency: 'PHP', reason: 'broken, "badly"'}, line: 2},
      {fields: {amount: '', checkoutId: 'chk_2', currency: '', reason: ''}, line: 3},
    ])
    // The classic trap: a quoted line break is part of the field, and the next row keeps its own line number.
    expect(await read('checkoutId,reason\nchk_1,"two\nlines"\nchk_2,x\n')).toEqual([
      {fields: {checkoutId: 'chk_1', reason: 'two\nlines'}, line: 2},
      {fields: {checkoutId: 'chk_2', reason: 'x'}, line: 4},
    ])
    // A row with another number of fields is refused alone, at its line; the others go on.
    expect(await read('checkoutId,reason\nchk_1\nchk_2,x\n')).toEqual([
      {line: 2, problem: '1 fields where the first line has 2'},
      {fields: {checkoutId: 'chk_2', reason: 'x'}, line: 3},
    ])
    // A broken quote refuses the whole file: where the next row starts cannot be known.
    await expect(read('checkoutId,reason\nchk_1,"open\nchk_2,x\n')).rejects.toThrow('rows: a quote opened after line 1 is never closed; nothing was sent')
    await expect(read('checkoutId,reason\nchk_1,"a"b\n')).rejects.toThrow('rows: line 2: a quote inside a field (quote the whole field, and double the quotes inside)')
  })

  it('reads lines as they arrive, across chunks, \\r\\n or \\n, a byte-order mark dropped', async () => {
    const lines = []
    for await (const line of readLines(Readable.from(['\uFEFFcheckoutId\r\nchk', '_1\nchk_2']), 'rows', {maxLineLength: 100, maxLines: 10})) lines.push(line)
    expect(lines).toEqual([
      {number: 1, text: 'checkoutId'},
      {number: 2, text: 'chk_1'},
      {number: 3, text: 'chk_2'},
    ])
  })
})
