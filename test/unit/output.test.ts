import {describe, expect, it} from 'vitest'

import {ListWriter, type OutputMode, renderDocument} from '../../src/cli/output.js'
import {localTime} from '../../src/cli/output/times.js'
import {getPath} from '../../src/services/dot-path.js'

const rows = [
  {id: 'c-1', amount: {value: '12.34', currency: 'PHP'}, note: 'plain'},
  {id: 'c-2', amount: {value: '5.00', currency: 'PHP'}, note: 'has "quotes", a comma\nand a newline'},
]

const pipe: OutputMode = {format: 'table', terminal: false, truncate: true, width: 80}
const terminal: OutputMode = {...pipe, terminal: true}

async function render(document: unknown, mode: OutputMode, view = {}) {
  let out = ''
  let err = ''
  await renderDocument(document, view, mode, {err: (t) => (err += t), out: (t) => (out += t)})
  return {err, out}
}

describe('control characters from a service are shown escaped; JSON keeps them exact', () => {
  const evil = {
    id: 'c-\u009B1',
    requestReferenceNumber: 'REF\u001B]0;pwned\u0007\u001B[2J',
    buyer: {firstName: 'Ann\tTab\r\nNext', lastName: '\u202Eevil\u2066x\u2069\u200F'},
    'k\u001B[31m': 'v\u007F',
  }
  const RAW = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/
  const escaped = String.raw`REF\e]0;pwned\x07\e[2J`

  it('in a terminal table, a key/value record, TSV and CSV', async () => {
    const modes: OutputMode[] = [terminal, pipe, {...pipe, format: 'csv'}]
    for (const mode of modes) {
      const record = (await render(evil, mode)).out
      const list = (await render([evil], mode, {columns: ['id', 'requestReferenceNumber', 'buyer.firstName', 'buyer.lastName']})).out
      for (const out of [record, list]) {
        expect(out, mode.format).not.toMatch(RAW)
        expect(out, mode.format).toContain(escaped)
        expect(out, mode.format).toContain(String.raw`Ann\tTab\r\nNext`)
        expect(out, mode.format).toContain(String.raw`\x9b`)
      }

      expect(record, mode.format).toContain(String.raw`k\e[31m`)
      expect(record, mode.format).toContain(String.raw`v\x7f`)
      // A TSV or CSV listing keeps one line per row.
      if (!mode.terminal || mode.format === 'csv') expect(list.trimEnd().split('\n'), mode.format).toHaveLength(2)
    }

    expect((await render([evil], pipe, {columns: ['buyer']})).out).toContain(String.raw`\u202eevil\u2066x\u2069\u200f`)
  })

  it('json and ndjson keep the exact value', async () => {
    expect(JSON.parse((await render(evil, {...pipe, format: 'json'})).out)).toEqual(evil)
    expect(JSON.parse((await render(evil, {...pipe, format: 'ndjson'})).out)).toEqual(evil)
  })
})

describe('renderDocument', () => {
  it('json is the document; ndjson is one element of its list per line', async () => {
    const document = {count: 2, things: rows}
    expect(JSON.parse((await render(document, {...pipe, format: 'json'})).out)).toEqual(document)
    const ndjson = (await render(document, {...pipe, format: 'ndjson'}, {list: 'things'})).out
    expect(ndjson.trim().split('\n').map((l) => JSON.parse(l))).toEqual(rows)
    expect((await render({a: 1}, {...pipe, format: 'ndjson'})).out).toBe('{"a":1}\n')
  })

  it('csv quotes commas and quotes, shows a newline as \\n, picks dot-path columns, and joins arrays with ;', async () => {
    const csv = (await render(rows, {...pipe, columns: ['id', 'amount.value', 'note'], format: 'csv'})).out
    expect(csv).toBe('id,amount.value,note\nc-1,12.34,plain\nc-2,5.00,"has ""quotes"", a comma\\nand a newline"\n')
    expect((await render([{id: 'e', symptoms: ['cough', 'wheeze']}], {...pipe, format: 'csv'})).out).toBe('id,symptoms\ne,cough;wheeze\n')
  })

  it('a table in a pipe is tab-separated with a header; a record is key<TAB>value lines', async () => {
    expect((await render(rows, {...pipe, columns: ['id', 'amount.currency']})).out).toBe('id\tamount.currency\nc-1\tPHP\nc-2\tPHP\n')
    expect((await render({status: 'ok', count: 2}, pipe)).out).toBe('status\tok\ncount\t2\n')
  })

  it('a table in a terminal has no boxes and no rules; (none) goes to stderr', async () => {
    const {out} = await render(rows, {...terminal, columns: ['id', 'amount.currency']})
    expect(out).toBe('id   amount.currency\nc-1  PHP\nc-2  PHP\n')
    expect(await render([], terminal)).toEqual({err: '(none)\n', out: ''})
  })

  it('times are shown in the zone asked for in tables and CSV, exactly in JSON', async () => {
    const event = {date: '2026-03-01T15:30:00.000Z'}
    expect((await render([event], {...terminal, zone: 'Asia/Manila'})).out).toBe('date\n2026-03-01 23:30 +08:00\n')
    expect((await render([event], {...pipe, format: 'csv', zone: 'Asia/Manila'})).out).toBe('date\n2026-03-01T23:30:00.000+08:00\n')
    expect((await render([event], {...terminal})).out).toBe('date\n2026-03-01 15:30 UTC\n')
    expect(JSON.parse((await render([event], {...pipe, format: 'json', zone: 'Asia/Manila'})).out)).toEqual([event])
  })

  it('getPath follows dot paths and stops at missing parts', () => {
    expect(getPath(rows[0], 'amount.value')).toBe('12.34')
    expect(getPath(rows[0], 'amount.value.x')).toBeUndefined()
    expect(getPath(rows[0], 'missing.deep')).toBeUndefined()
  })
})

describe('tables that fit', () => {
  it('shortens the free-text column first, and every line fits the width', async () => {
    const long = {id: 'ev-1', note: 'x'.repeat(200), source: 'manual'}
    const {out} = await render([long], {...terminal, width: 40}, {freeText: ['note']})
    for (const line of out.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(40)
    expect(out).toContain('…')
    expect(out).toMatch(/ev-1 +x+… +manual/)
  })

  it('--no-truncate keeps every character', async () => {
    const long = {id: 'ev-1', note: 'word '.repeat(30).trim()}
    const {out} = await render([long], {...terminal, truncate: false, width: 40})
    expect(out).not.toContain('…')
    expect(out).toContain(long.note)
  })

  it('streams page by page with the widths of the first page (bench/table-render.mjs times 20,000 rows)', async () => {
    let out = ''
    const writer = new ListWriter({...terminal, width: 100}, {columns: ['id', 'date', 'note']}, {err() {}, out: (t) => (out += t)})
    for (let i = 0; i < 2000; i++) {
      await writer.push({date: '2026-03-01T15:30:00.000Z', id: `ev-${i}`, note: i === 500 ? 'y'.repeat(300) : 'cough'})
      if (i % 50 === 49) await writer.endPage()
    }

    await writer.end()
    const lines = out.trimEnd().split('\n')
    expect(lines).toHaveLength(2001)
    expect(lines[0]).toMatch(/^id +date +note$/)
    // widths come from the first page: the long note of a later page is cut to the same width
    expect(new Set(lines.slice(1).map((l) => l.indexOf('2026')))).toEqual(new Set([lines[1].indexOf('2026')]))
    expect(lines[501]).toMatch(/y…$/)
  })
})

describe('localTime', () => {
  it('keeps milliseconds in CSV and drops them in tables; UTC without a zone', () => {
    expect(localTime('2026-03-01T15:30:12.345Z', 'Asia/Manila', 'csv')).toBe('2026-03-01T23:30:12.345+08:00')
    expect(localTime('2026-03-01T15:30:12.345Z', undefined, 'csv')).toBe('2026-03-01T15:30:12.345Z')
    expect(localTime('2026-07-01T12:00:00Z', 'America/New_York', 'table')).toBe('2026-07-01 08:00 -04:00')
  })
})
