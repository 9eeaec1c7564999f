import {describe, expect, it} from 'vitest'

import {plainLines, tableLines, TableStream} from '../../src/cli/output/table.js'

/** A small seeded generator, so a failure names the seed that reproduces it. */
function random(seed: number): () => number {
  let s = seed
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648
    return s / 2_147_483_648
  }
}

const ALPHABET = 'abcXYZ019 -_.:,;"\'|~'

function page(next: () => number, columns: number, rows: number, longest: number): string[][] {
  const cell = () => Array.from({length: Math.floor(next() * longest)}, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join('')
  return Array.from({length: rows}, () => Array.from({length: columns}, cell))
}

describe('plain table pages', () => {
  it('give exactly the text cli-table3 draws: padding, the two-space gap, truncation with …, trailing spaces trimmed', async () => {
    for (let seed = 1; seed <= 100; seed++) {
      const next = random(seed)
      const columns = 1 + Math.floor(next() * 6)
      const widths = Array.from({length: columns}, () => 1 + Math.floor(next() * 12))
      const rows = page(next, columns, 1 + Math.floor(next() * 8), 16)
      const truncate = next() < 0.7
      // Without truncation the plain path takes cells that fit and do not start with a space (cli-table3 wraps the others).
      const fitting = truncate ? rows : rows.map((r) => r.map((c, i) => c.slice(0, widths[i]).trimStart()))
      const head = Array.from({length: columns}, (_, i) => `c${i}`.slice(0, widths[i]))
      expect(plainLines([head, ...fitting], widths, truncate), `seed ${seed}`).toBe(await tableLines(fitting, widths, truncate, head))
    }
  })

  it('leave to cli-table3 what only it draws right: wide characters, control characters, cells to wrap', () => {
    expect(plainLines([['日本語']], [6], true)).toBeUndefined()
    expect(plainLines([['a\u001B[31mb']], [6], true)).toBeUndefined()
    expect(plainLines([['two\nlines']], [9], true)).toBeUndefined()
    expect(plainLines([['longer than six']], [6], false)).toBeUndefined()
    expect(plainLines([[' lead']], [6], false)).toBeUndefined()
    expect(plainLines([['longer than six']], [6], true)).toBe('longe…')
  })

  it('a stream of mixed pages stays aligned: a page cli-table3 draws lines up with the plain ones', async () => {
    let out = ''
    const stream = new TableStream(['name', 'note'], {truncate: true, width: 40}, (t) => (out += t))
    await stream.page([['ana', 'plain']])
    await stream.page([['李', 'wide']])
    await stream.page([['bo', 'a note far longer than the terminal is wide, cut']])
    expect(out.split('\n')).toEqual(['name  note', 'ana   plain', '李    wide', 'bo    a no…', ''])
  })
})
