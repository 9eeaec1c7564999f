/**
 * The terminal table's layout (src/cli/output/table.ts): what gives way when a table is wider
 * than the terminal, whatever the characters of its cells.
 */
import {describe, expect, it} from 'vitest'

import {droppedNote} from '../../src/cli/output.js'
import {displayWidth, type Dropped, TableStream} from '../../src/cli/output/table.js'
import {shortTableTime} from '../../src/cli/output/times.js'

function draw(names: string[], rows: string[][], width: number, layout = {}, chosen = false): {dropped: string[]; lines: string[]} {
  let out = ''
  let dropped: string[] = []
  new TableStream(names, names, {chosen, layout, shortTime: shortTableTime, truncate: true, width}, (t) => (out += t), true, (d) => (dropped = d.dropped)).page(rows)
  return {dropped, lines: out.trimEnd().split('\n')}
}

describe('a table narrower than its cells', () => {
  const names = ['id', 'date', 'medicationType', 'symptoms', 'source']
  const row = ['65f0c1d2e3a4b5c6d7e8f9a0', '2026-11-24 21:05 +08:00', 'rescue', 'wokenAtNight, cough, wheeze', 'manual']
  const layout = {id: {kind: 'id', priority: 1}, medicationType: {priority: 2}, source: {priority: 3}, symptoms: {kind: 'text', priority: 1}}

  it('leaves out low-priority columns rather than cut free text, and names them', () => {
    const {dropped, lines} = draw(names, [row], 80, layout)
    expect(lines).toEqual(['id                        date                     symptoms', '65f0c1d2e3a4b5c6d7e8f9a0  2026-11-24 21:05 +08:00  wokenAtNight, cough, wheeze'])
    expect(dropped).toEqual(['medicationType', 'source'])
  })

  it('uses a wide terminal: every column, every cell whole', () => {
    const {dropped, lines} = draw(names, [row], 120, layout)
    expect(dropped).toEqual([])
    expect(lines[1].split(/ {2,}/)).toEqual(row)
  })

  it('never cuts an id, a header or a time: a time loses its year first', () => {
    const {lines} = draw(['id', 'date', 'note'], [['65f0c1d2e3a4b5c6d7e8f9a0', '2026-11-24 21:05 UTC', 'x'.repeat(40)]], 53, {id: {kind: 'id'}, note: {kind: 'text'}}, true)
    expect(lines[0]).toMatch(/^id {24}date {13}note$/)
    expect(lines[1]).toBe(`65f0c1d2e3a4b5c6d7e8f9a0  11-24 21:05 UTC  ${'x'.repeat(9)}…`)
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(53)
  })

  it('measures wide, combining and emoji cells by display width and cuts them between characters', () => {
    const cells = [['日本語のメモ', 'e\u0301te\u0301', '👩‍👩‍👧 family'], ['ana', 'bo', 'plain']]
    const {lines} = draw(['name', 'word', 'note'], cells, 30, {note: {kind: 'text'}, name: {kind: 'text'}}, true)
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(30)
    // Columns line up on the display, not on code units.
    const starts = lines.map((l) => displayWidth(l.slice(0, l.indexOf(l.includes('bo') ? 'bo' : 'e\u0301te\u0301'))))
    expect(new Set(starts.slice(1)).size).toBe(1)
    expect(lines[1]).toContain('👩‍👩‍👧')
  })
})

describe('what a person needs stays whole', () => {
  function left(names: string[], rows: string[][], width: number, layout = {}): Dropped | undefined {
    let note: Dropped | undefined
    new TableStream(names, names, {layout, shortTime: shortTableTime, truncate: true, width}, () => {}, true, (d) => (note = d)).page(rows)
    return note
  }

  it('a column with one value on every row goes first, and the note names its value once', () => {
    const names = ['period', 'date', 'eventsRescue', 'eventsRescueNight', 'eventsRescueDay', 'eventsController']
    const rows = ['2026-11-23', '2026-11-24', '2026-11-25'].map((d, i) => ['daily', d, `${i + 3}`, `${i}`, `${2 * i}`, `${10 * i}`])
    const {dropped, lines} = draw(names, rows, 80)
    expect(dropped).toEqual(['period'])
    expect(lines[0].split(/ {2,}/)).toEqual(names.slice(1))
    for (const [i, line] of lines.slice(1).entries()) expect(line.startsWith(rows[i][1] + ' ')).toBe(true)
    expect(droppedNote(left(names, rows, 80)!, 80)).toBe('Left out, the same on every row: period = daily\n')
  })

  it('a whole column (an enum, an amount, a URL declared whole) is left out, never cut; free text is cut', () => {
    const names = ['id', 'name', 'callbackUrl', 'createdAt']
    const row = ['wh_c5f285c4752af0d1e2f3a4b5', 'CHECKOUT_SUCCESS', 'https://shop.example/hooks/paymaya/notifications/checkout', '2026-11-24 21:05 +08:00']
    const layout = {callbackUrl: {kind: 'text', priority: 2}, createdAt: {priority: 3}, id: {kind: 'id', priority: 1}, name: {priority: 1}}
    const {dropped, lines} = draw(names, [row, [...row.slice(0, 1), 'CHECKOUT_FAILURE', ...row.slice(2)]], 80, layout)
    expect(lines[1]).toMatch(/^wh_c5f285c4752af0d1e2f3a4b5 {2}CHECKOUT_SUCCESS {2}https:\/\/shop/)
    expect(lines[2]).toContain(' CHECKOUT_FAILURE ')
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80)
    expect(dropped).toEqual([])
    expect(lines[1]).toMatch(/ https:\/\/shop\S*… {2}11-24 21:05 \+08:00$/)
  })

  it('the "Left out" note fits the terminal: how many, and a --columns that fits to see them', () => {
    const names = ['id', 'date', 'medicationType', 'medicationId', 'source', 'doses', 'nightEvent', 'symptoms', 'triggers']
    const row = ['65f0c1d2e3a4b5c6d7e8f9a0', '2026-11-24 21:05 +08:00', 'rescue', 'med-salbutamol', 'manual', '2', 'true', 'wokenAtNight, cough, wheeze', 'dust, exercise']
    const layout = {date: {priority: 1}, doses: {priority: 2}, id: {kind: 'id', priority: 1}, medicationId: {priority: 3}, medicationType: {priority: 1}, source: {priority: 4}, symptoms: {kind: 'text', priority: 1}, triggers: {kind: 'text', priority: 2}}
    const other = ['65f0c1d2e3a4b5c6d7e8f9a1', '2026-11-25 02:10 +08:00', 'controller', 'med-fluticasone', 'sensor', '1', 'false', 'cough', 'pollen']
    const note = droppedNote(left(names, [row, other], 80, layout)!, 80)
    for (const line of note.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(note).toMatch(/^Left out \d columns to fit 80: see them with\s+--columns\s+id,\S+/)
    const wanted = /--columns\s+(\S+)/.exec(note)![1].split(',')
    // Following the note shows what it names, and leaves nothing else out.
    const followed = draw(wanted, [wanted.map((n) => row[names.indexOf(n)])], 80, layout, true)
    expect(followed.dropped).toEqual([])
  })
})

describe('a reason is read whole', () => {
  it('a refused row\'s reason continues on the next lines, between words, and the id stays whole', () => {
    const names = ['line', 'checkoutId', 'outcome', 'code', 'message']
    const reason = 'was voided on 2026-11-24; there is nothing to refund, and a second refund would be refused too'
    const {lines} = draw(names, [['3', 'chk_63112d02a4b5c6d7e8f9a0b1', 'refused', 'not-voidable', reason]], 80, {
      checkoutId: {kind: 'id', priority: 1},
      message: {kind: 'reason', priority: 1},
    })
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80)
    expect(lines[1]).toMatch(/^3 +chk_63112d02a4b5c6d7e8f9a0b1 {2}refused {2}not-voidable {2}was voided/)
    expect(lines.join('\n')).not.toContain('…')
    const start = lines[0].indexOf('message')
    expect(lines.slice(1).map((l) => l.slice(start).trim()).join(' ')).toBe(reason)
  })
})

describe('a reason holding an id', () => {
  it('a request id in a reason stays on one line: a text column is cut, or a column left out, to make room for it', () => {
    const names = ['suite', 'name', 'operation', 'outcome', 'detail']
    const rows = [
      ['checkout', 'refund part of a payment the next day', 'refundCheckout', 'passed', '11d46f7f-0ea4-4906-8108-ef5ffb030882'],
      ['health', 'void it the same day', 'voidCheckout', 'passed', '485c10f9-2b9e-48d0-939f-c29c2b16b415'],
    ]
    const {lines} = draw(names, rows, 80, {detail: {kind: 'reason', priority: 1}, name: {kind: 'text', min: 12, priority: 1}, operation: {priority: 3}, outcome: {priority: 1}, suite: {priority: 1}})
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80)
    const text = lines.join('\n')
    expect(text).toContain('11d46f7f-0ea4-4906-8108-ef5ffb030882')
    expect(text).toContain('485c10f9-2b9e-48d0-939f-c29c2b16b415')
  })
})

describe('headers', () => {
  it('a column whose header does not fit is left out, not cut, even with room for part of it', () => {
    const names = ['period', 'date', 'eventsRescue', 'eventsRescueNight', 'eventsRescueNightManual', 'eventsControllerAdministered']
    const rows = [['daily', '2026-11-24', '1', '0', '0', '2']]
    const {dropped, lines} = draw(names, rows, 80)
    expect(lines[0]).not.toContain('…')
    expect(dropped).toEqual(['eventsControllerAdministered'])
  })
})
