/**
 * The records of an input file (src/runtime/file-input.ts): bounded as they are read, from a
 * file, standard input or a named pipe; binary input refused; CSV by csv-parse, or JSON lines.
 */
import {execFileSync} from 'node:child_process'
import {createWriteStream, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type InputLimits, type InputRecord, type InputShape, openSource, readRecords} from '../../src/runtime/file-input.js'

const SHAPE: InputShape = {columns: ['checkoutId', 'amount'], example: 'checkoutId,amount', required: ['checkoutId']}
const LIMITS: InputLimits = {maxBytes: 64 * 1024, maxRecordLength: 200, maxRows: 5}

let folder: string
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'opsctl-file-input-'))
})
afterEach(() => rmSync(folder, {force: true, recursive: true}))

async function all(input: AsyncIterable<Buffer | string>, limits = LIMITS): Promise<InputRecord[]> {
  const records: InputRecord[] = []
  for await (const record of readRecords(input, 'orders.csv', SHAPE, limits)) records.push(record)
  return records
}

const bytes = (...chunks: (Buffer | string)[]) => Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)))

describe('the bounds, checked as the input is read', () => {
  it('a named pipe whose writer never stops is refused once past the byte cap, while the writer is still writing', async () => {
    const fifo = join(folder, 'orders.fifo')
    execFileSync('mkfifo', [fifo])
    const source = await openSource(fifo)
    expect(source.file).toBeUndefined()
    const reading = all(source.open(), {...LIMITS, maxRows: 1_000_000})
    // The writer writes rows for ever: only a reader that stops at the cap ends this test.
    const writer = createWriteStream(fifo)
    const row = Buffer.from('chk_1,1.00\n'.repeat(1000))
    let written = 0
    const stopped = new Promise<void>((resolve) => {
      writer.on('error', () => resolve())
      writer.on('close', () => resolve())
    })
    const more = () => {
      while (writer.write(row)) written += row.length
      written += row.length
    }

    writer.on('drain', more)
    writer.write('checkoutId,amount\n')
    more()
    await expect(reading).rejects.toThrow('orders.csv is larger than 65536 bytes; split it into several files. Nothing was sent')
    writer.destroy()
    await stopped
    expect(written).toBeGreaterThan(LIMITS.maxBytes)
  })

  it('refuses the row after the last one allowed, counting data rows only', async () => {
    const five = 'checkoutId\n' + 'chk_1\n'.repeat(5)
    expect(await all(bytes(five))).toHaveLength(5)
    await expect(all(bytes(five + 'chk_6\n'))).rejects.toThrow('orders.csv has more than 5 rows; split it into several files. Nothing was sent')
  })

  it('refuses a NUL byte and bytes that are not UTF-8 as binary, whatever the chunks', async () => {
    await expect(all(bytes('checkoutId\nchk_1\u0000\n'))).rejects.toThrow('orders.csv holds a NUL byte (byte 17): it is a binary file, not CSV or JSON lines. Nothing was sent')
    await expect(all(bytes('checkoutId\nchk_', Buffer.from([0xc3, 0x28]), '\n'))).rejects.toThrow('orders.csv is not UTF-8 text')
    // A character split across two chunks is still UTF-8.
    const peso = Buffer.from('checkoutId,amount\nchk_₱,1\n')
    const cut = peso.indexOf(0xe2) + 1
    expect(await all(bytes(peso.subarray(0, cut), peso.subarray(cut)))).toEqual([{fields: {amount: '1', checkoutId: 'chk_₱'}, line: 2}])
    await expect(all(bytes('checkoutId\nchk_', Buffer.from([0xe2, 0x82])))).rejects.toThrow('it ends inside a character')
  })

  it('refuses a record longer than the limit (with its line), even one with no line break', async () => {
    await expect(all(bytes('checkoutId,amount\nchk_1,1\n' + 'x'.repeat(300)))).rejects.toThrow('orders.csv: line 3 is longer than 200 characters; nothing was sent')
    await expect(all(bytes('{"checkoutId":"' + 'x'.repeat(300) + '"}\n'))).rejects.toThrow('orders.csv: line 1 is longer than 200 characters; nothing was sent')
  })
})

describe('the formats', () => {
  it('CSV by its header in any order and letter case, a byte-order mark and \\r\\n line breaks; blank lines skipped', async () => {
    expect(await all(bytes('\uFEFF\r\nAMOUNT,checkoutid\r\n1.00,chk_1\r\n\r\n2.00,chk_2'))).toEqual([
      {fields: {amount: '1.00', checkoutId: 'chk_1'}, line: 3},
      {fields: {amount: '2.00', checkoutId: 'chk_2'}, line: 5},
    ])
  })

  it('refuses a header naming an unknown column, a column twice, or not the required one; a first line that is no header', async () => {
    await expect(all(bytes('checkoutId,colour\n'))).rejects.toThrow('orders.csv: unknown column "colour" in the header; the columns are checkoutId, amount; nothing was sent')
    await expect(all(bytes('checkoutId,checkoutid\n'))).rejects.toThrow('column checkoutId appears twice')
    await expect(all(bytes('amount\n1.00\n'))).rejects.toThrow('the header has no checkoutId column (expected checkoutId,amount)')
    await expect(all(bytes('chk_1,1.00\n'))).rejects.toThrow('orders.csv: line 1 is not a CSV header naming checkoutId,amount, nor a JSON object; nothing was sent')
  })

  it('one value per line when the shape allows it', async () => {
    const records: InputRecord[] = []
    for await (const r of readRecords(bytes('chk_1\nchk_2\n'), 'ids', {...SHAPE, bare: 'checkoutId'}, LIMITS)) records.push(r)
    expect(records).toEqual([
      {fields: {checkoutId: 'chk_1'}, line: 1},
      {fields: {checkoutId: 'chk_2'}, line: 2},
    ])
  })

  it('JSON lines: each object, or why a line is not one (the others go on)', async () => {
    expect(await all(bytes('{"checkoutId":"chk_1","amount":"1.00"}\nnot json\n[1]\n{"checkoutId":"chk_2","colour":"red"}\n'))).toEqual([
      {fields: {amount: '1.00', checkoutId: 'chk_1'}, line: 1},
      {line: 2, problem: 'not valid JSON'},
      {line: 3, problem: 'expected a JSON object'},
      {line: 4, problem: 'unknown field "colour" (the fields are checkoutId, amount)'},
    ])
  })

  it('an empty or blank input has no records; a directory or a missing path is refused', async () => {
    expect(await all(bytes(''))).toEqual([])
    expect(await all(bytes('\uFEFF \n\n'))).toEqual([])
    await expect(openSource(folder)).rejects.toThrow(`${folder} is not a file; nothing was sent`)
    await expect(openSource(join(folder, 'nope.csv'))).rejects.toThrow('no such file')
    const path = join(folder, 'ok.csv')
    writeFileSync(path, 'checkoutId\nchk_1\n')
    const source = await openSource(path)
    expect(source.file).toBe(path)
    expect(await all(source.open())).toEqual([{fields: {checkoutId: 'chk_1'}, line: 2}])
  })
})
