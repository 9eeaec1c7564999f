/**
 * Output for scripts: a list of plain values (what `--query 'events[].id'` yields) prints one value
 * a line with no header in table, TSV and CSV form; a list of lists prints as columns; and
 * `--no-headers` drops the header row of any table, TSV or CSV.
 */
import {describe, expect, it} from 'vitest'

import {ListWriter, type OutputMode, renderDocument} from '../../src/cli/output.js'

const pipe: OutputMode = {format: 'table', terminal: false, truncate: true, width: 80}
const terminal: OutputMode = {...pipe, terminal: true}
const csv: OutputMode = {...pipe, format: 'csv'}

async function render(document: unknown, mode: OutputMode, view = {}) {
  let out = ''
  await renderDocument(document, view, mode, {err: () => {}, out: (t) => (out += t)})
  return out
}

describe('a list of plain values', () => {
  it.each([
    ['piped', pipe],
    ['in a terminal', terminal],
    ['as CSV', csv],
  ])('prints one value a line, no header, %s', async (_name, mode) => {
    expect(await render(['ev_1', 'ev_2', 'ev 3'], mode)).toBe('ev_1\nev_2\nev 3\n')
  })

  it('prints a list of lists as columns: tab-separated in a pipe, comma-separated as CSV, aligned in a terminal', async () => {
    const pairs = [
      ['ev_1', 42],
      ['ev_22', 7],
    ]
    expect(await render(pairs, pipe)).toBe('ev_1\t42\nev_22\t7\n')
    expect(await render(pairs, csv)).toBe('ev_1,42\nev_22,7\n')
    expect((await render(pairs, terminal)).split('\n').map((l) => l.trimEnd())).toEqual(['ev_1   42', 'ev_22  7', ''])
  })

  it('keeps objects as a table with their header', async () => {
    expect(await render([{id: 'ev_1'}], pipe)).toBe('id\nev_1\n')
  })
})

describe('--no-headers', () => {
  const list = [
    {id: 'wh_1', name: 'CHECKOUT_SUCCESS'},
    {id: 'wh_2', name: 'CHECKOUT_FAILURE'},
  ]
  const view = {columns: ['id', 'name'], list: 'webhooks'}

  it.each([
    ['piped', pipe, 'wh_1\tCHECKOUT_SUCCESS\nwh_2\tCHECKOUT_FAILURE\n'],
    ['as CSV', csv, 'wh_1,CHECKOUT_SUCCESS\nwh_2,CHECKOUT_FAILURE\n'],
  ])('drops the header row %s', async (_name, mode, expected) => {
    expect(await render({webhooks: list}, {...mode, headers: false}, view)).toBe(expected)
  })

  it('drops the header row of a terminal table, and of a streamed list', async () => {
    const table = await render({webhooks: list}, {...terminal, headers: false}, view)
    expect(table).not.toContain('id')
    expect(table).toContain('wh_1')
    let out = ''
    const writer = new ListWriter({...csv, headers: false}, view, {err: () => {}, out: (t) => (out += t)})
    for (const row of list) await writer.push(row)
    await writer.end()
    expect(out).toBe('wh_1,CHECKOUT_SUCCESS\nwh_2,CHECKOUT_FAILURE\n')
  })
})

describe('an empty list', () => {
  const view = {columns: ['id', 'name'], list: 'webhooks'}
  async function shown(mode: OutputMode) {
    let out = ''
    let err = ''
    await renderDocument({webhooks: []}, view, mode, {err: (t) => (err += t), out: (t) => (out += t)})
    return {err, out}
  }

  it('is its header alone in every tabular format; only a terminal adds (none), on stderr', async () => {
    expect(await shown(pipe)).toEqual({err: '', out: 'id\tname\n'})
    expect(await shown(csv)).toEqual({err: '', out: 'id,name\n'})
    expect(await shown(terminal)).toEqual({err: '(none)\n', out: 'id  name\n'})
    expect(await shown({...pipe, format: 'ndjson'})).toEqual({err: '', out: ''})
  })
})
