import {describe, expect, it} from 'vitest'

import {render, RowWriter} from '../../src/cli/output.js'
import {getPath} from '../../src/services/dot-path.js'

const rows = [
  {id: 'c-1', amount: {value: '12.34', currency: 'PHP'}, note: 'plain'},
  {id: 'c-2', amount: {value: '5.00', currency: 'PHP'}, note: 'has "quotes", a comma\nand a newline'},
]

describe('render', () => {
  it('json and ndjson', async () => {
    expect(JSON.parse(await render(rows, {format: 'json'}))).toEqual(rows)
    expect((await render(rows, {format: 'ndjson'})).split('\n').map((l) => JSON.parse(l))).toEqual(rows)
    expect(await render({a: 1}, {format: 'ndjson'})).toBe('{"a":1}')
  })

  it('csv quotes commas, quotes and newlines, and picks dot-path columns', async () => {
    const csv = await render(rows, {columns: ['id', 'amount.value', 'note'], format: 'csv'})
    expect(csv).toBe('id,amount.value,note\nc-1,12.34,plain\nc-2,5.00,"has ""quotes"", a comma\nand a newline"')
  })

  it('csv of one object is one row; nested values become JSON', async () => {
    expect(await render({id: 'x', amount: {value: '1'}}, {format: 'csv'})).toBe('id,amount\nx,"{""value"":""1""}"')
  })

  it('table: rows with the chosen columns, an object as field/value, and (none) for an empty list', async () => {
    const table = await render(rows, {columns: ['id', 'amount.currency'], format: 'table'})
    expect(table).toMatch(/│ id\s+│ amount\.currency │/)
    expect(table).toMatch(/│ c-2\s+│ PHP\s+│/)
    expect(table).not.toContain('note')
    expect(await render({status: 'ok', count: 2}, {format: 'table'})).toMatch(/│ status │ ok\s+│[\s\S]*│ count\s+│ 2\s+│/)
    expect(await render([], {format: 'table'})).toBe('(none)')
  })

  it('getPath follows dot paths and stops at missing parts', () => {
    expect(getPath(rows[0], 'amount.value')).toBe('12.34')
    expect(getPath(rows[0], 'amount.value.x')).toBeUndefined()
    expect(getPath(rows[0], 'missing.deep')).toBeUndefined()
  })
})

describe('RowWriter', () => {
  async function write(format: 'csv' | 'json' | 'ndjson' | 'table', list: object[], columns?: string[]) {
    let out = ''
    const writer = new RowWriter({columns, format}, (t) => (out += t))
    for (const r of list) await writer.push(r as Record<string, unknown>)
    await writer.end()
    return {out, written: writer.written}
  }

  it('streams ndjson and csv row by row, json as one valid array', async () => {
    expect((await write('ndjson', rows)).out.trim().split('\n')).toHaveLength(2)
    const csv = await write('csv', rows, ['id', 'amount.value'])
    expect(csv.out).toBe('id,amount.value\nc-1,12.34\nc-2,5.00\n')
    expect(csv.written).toBe(2)
    expect(JSON.parse((await write('json', rows)).out)).toEqual(rows)
    expect(JSON.parse((await write('json', [])).out)).toEqual([])
  })

  it('an empty csv listing still has its header when columns are known; a table says (none)', async () => {
    expect((await write('csv', [], ['id', 'status'])).out).toBe('id,status\n')
    expect((await write('table', [])).out).toBe('(none)\n')
  })
})
