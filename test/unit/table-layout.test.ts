/**
 * The terminal table's layout (src/cli/output/table.ts): what gives way when a table is wider
 * than the terminal, whatever the characters of its cells.
 */
import {describe, expect, it} from 'vitest'

import {displayWidth, TableStream} from '../../src/cli/output/table.js'
import {shortTableTime} from '../../src/cli/output/times.js'

function draw(names: string[], rows: string[][], width: number, layout = {}, chosen = false): {dropped: string[]; lines: string[]} {
  let out = ''
  let dropped: string[] = []
  new TableStream(names, names, {chosen, layout, shortTime: shortTableTime, truncate: true, width}, (t) => (out += t), true, (d) => (dropped = d)).page(rows)
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
