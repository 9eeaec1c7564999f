import {CsvError, parse} from 'csv-parse'
/**
 * The records of a file a command reads its rows from (`refund create --from-file`, `checkout void
 * --from-file`, `checkout reconcile --from-file`): a path, `-` for standard input, or a named pipe,
 * read as a stream and bounded as it is read, never held whole.
 *
 * - Bytes: more than `maxBytes` is refused as soon as they arrive; a NUL byte or bytes that are not
 *   UTF-8 is refused as a binary file (a spreadsheet saved as .xlsx, a zip).
 * - Rows: more than `maxRows` records is refused as soon as the one too many is read.
 * - The format is decided by the first byte that is not blank (a byte-order mark dropped): `{`
 *   starts JSON lines (one object a line); anything else is CSV with a header naming its columns in
 *   any order (letter case ignored). A shape with `bare` also takes a file of one value per line
 *   with no header (bulk voids: one checkout id per line).
 * - CSV is parsed by csv-parse (RFC 4180: a quoted field may hold commas, doubled quotes and line
 *   breaks); a record may not be longer than `maxRecordLength` characters, a record with another
 *   number of fields than the header is refused with its line and the others go on, and a broken
 *   quote refuses the whole file (after it, where the next record starts cannot be known).
 *
 * What refuses the whole input is a UsageError (exit 2) ending in "Nothing was sent": callers read
 * the whole input once before their first request.
 */
import {type Stats} from 'node:fs'
import {createReadStream} from 'node:fs'
import {stat} from 'node:fs/promises'
import {pipeline, Readable} from 'node:stream'

import {sizeText, UsageError} from '../errors.js'
import {checkedChunks} from './bounded-read.js'
import {readLines} from './bulk/lines.js'

export interface InputLimits {
  /** Bytes in the whole input. */
  maxBytes: number
  /** Records (the header excluded). */
  maxRows: number
  /** Characters in one record (its line break excluded). */
  maxRecordLength: number
}

export interface InputShape {
  /** The columns (CSV) or fields (JSON lines) a record may have, as they are named in messages. */
  columns: readonly string[]
  /** Columns a CSV header must name. */
  required: readonly string[]
  /** A file whose first line names none of the columns is one value per line, of this column. */
  bare?: string
  /** What a header looks like, for the message refusing one. */
  example: string
}

/** One record: its fields by column name (a CSV field is text; a JSON field any JSON value), or why it cannot be read. */
export type InputRecord = {fields: Record<string, unknown>; line: number} | {line: number; problem: string}

/** A path (`-`: standard input) opened for reading: a regular file or a named pipe. */
export interface InputSource {
  /** For messages: the path as given, or "standard input". */
  label: string
  /** A regular file, which may be read again (a pipe or standard input is read once). */
  file?: string
  stats?: Stats
  open(): Readable
}

export async function openSource(path: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<InputSource> {
  if (path === '-') return {label: 'standard input', open: () => Readable.from(stdin as AsyncIterable<Buffer>)}
  let stats: Stats
  try {
    stats = await stat(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new UsageError(`Cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}; nothing was sent`)
  }

  if (stats.isFIFO()) return {label: path, open: () => createReadStream(path)}
  if (!stats.isFile()) throw new UsageError(`${path} is not a file; nothing was sent`)
  return {file: path, label: path, open: () => createReadStream(path), stats}
}

/**
 * The bytes of the input, each chunk checked as it passes: the byte cap, no NUL byte, UTF-8.
 * @returns each chunk, unchanged
 */
export function checkedBytes(input: AsyncIterable<Buffer | string>, source: string, maxBytes: number): AsyncGenerator<Buffer> {
  return checkedChunks(input, {
    limit: maxBytes,
    notText(problem) {
      if ('nulAt' in problem) return new UsageError(`${source} holds a NUL byte (byte ${problem.nulAt + 1}): it is a binary file, not CSV or JSON lines. Nothing was sent`)
      const where = problem.nearByte === undefined ? 'it ends inside a character' : `near byte ${problem.nearByte + 1}`
      return new UsageError(`${source} is not UTF-8 text (${where}); save it as UTF-8 CSV or JSON lines. Nothing was sent`)
    },
    tooLarge: () => new UsageError(`${source} is larger than ${sizeText(maxBytes)}; split it into several files. Nothing was sent`),
  })
}

/** Blank bytes before the first record: spaces, tabs, line breaks, and a UTF-8 byte-order mark. */
function firstContent(chunk: Buffer): number {
  let i = 0
  while (i < chunk.length) {
    if (chunk[i] === 0xef && chunk[i + 1] === 0xbb && chunk[i + 2] === 0xbf) i += 3
    else if (chunk[i] === 0x20 || chunk[i] === 0x09 || chunk[i] === 0x0a || chunk[i] === 0x0d) i++
    else return i
  }

  return -1
}

/**
 * The input's first non-blank byte, and the whole input again (nothing lost).
 * @returns the byte (undefined for a blank input) and the stream of every chunk
 */
async function peek(chunks: AsyncGenerator<Buffer>): Promise<{first?: number; rest: AsyncGenerator<Buffer>}> {
  const held: Buffer[] = []
  let first: number | undefined
  for (;;) {
    const next = await chunks.next()
    if (next.done) break
    held.push(next.value)
    const at = firstContent(Buffer.concat(held))
    if (at !== -1) {
      first = Buffer.concat(held)[at]
      break
    }
  }

  async function* rest(): AsyncGenerator<Buffer> {
    yield* held
    yield* chunks
  }

  return {first, rest: rest()}
}

function columnOf(shape: InputShape, name: string): string | undefined {
  return shape.columns.find((c) => c.toLowerCase() === name.trim().toLowerCase())
}

/** The columns a header names, in its order; refused whole when it is not one. */
function headerColumns(fields: string[], source: string, shape: InputShape): string[] {
  const columns: string[] = []
  for (const field of fields) {
    const name = columnOf(shape, field)
    if (!name) {
      throw new UsageError(
        `${source}: unknown column ${JSON.stringify(field.slice(0, 40))} in the header; the columns are ${shape.columns.join(', ')}; nothing was sent`,
      )
    }

    if (columns.includes(name)) throw new UsageError(`${source}: column ${name} appears twice in the header; nothing was sent`)
    columns.push(name)
  }

  const missing = shape.required.filter((c) => !columns.includes(c))
  if (missing.length > 0) throw new UsageError(`${source}: the header has no ${missing.join(', ')} column (expected ${shape.example}); nothing was sent`)
  return columns
}

/** Why csv-parse stopped, in the file's words: what refuses the whole file. */
function csvRefusal(error: CsvError, source: string, limits: InputLimits, lastRead: number): UsageError {
  const line = (error as CsvError & {lines?: number}).lines
  if (error.code === 'CSV_MAX_RECORD_SIZE') return new UsageError(`${source}: line ${line} is longer than ${limits.maxRecordLength} characters; nothing was sent`)
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') return new UsageError(`${source}: a quote opened after line ${lastRead} is never closed; nothing was sent`)
  const quote = error.code === 'CSV_INVALID_CLOSING_QUOTE' || error.code === 'INVALID_OPENING_QUOTE'
  const why = quote ? 'a quote inside a field (quote the whole field, and double the quotes inside)' : error.message
  return new UsageError(`${source}: line ${line}: ${why}; nothing was sent`)
}

/**
 * CSV records, the first line read as the header (or, with `bare`, as a first value).
 * @yields each record or why it is refused
 */
async function* csvRecords(bytes: AsyncIterable<Buffer>, source: string, shape: InputShape, limits: InputLimits): AsyncGenerator<InputRecord> {
  const skipped: {line: number; problem: string}[] = []
  let columns: string[] | undefined
  /** The line the last record parsed ends on. */
  let lastRead = 0
  const parser = parse({
    bom: true,
    info: true,
    max_record_size: limits.maxRecordLength,
    raw: true,
    relax_column_count: false,
    skip_empty_lines: true,
    on_record(record, context) {
      lastRead = context.lines
      return record
    },
    // A record with another number of fields is refused alone; anything else stops the file.
    skip_records_with_error: true,
    on_skip(error) {
      if (error?.code !== 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') throw error
      const got = (error as CsvError & {record?: unknown[]}).record?.length
      const expected = /expect (\d+)/.exec(error.message)?.[1]
      skipped.push({line: Number((error as CsvError & {lines?: number}).lines), problem: `${got} fields where the first line has ${expected}`})
    },
  })
  // pipeline: a refusal of the bytes ends the parser with it, and a reader that stops early closes the file.
  pipeline(Readable.from(bytes), parser, () => {})
  try {
    for await (const {info, raw, record} of parser as AsyncIterable<{info: {lines: number}; raw: string; record: string[]}>) {
      // csv-parse counts the line a record ends on; a record with quoted line breaks starts earlier.
      const line = info.lines - (raw.replace(/\r?\n$/, '').match(/\n/g)?.length ?? 0)
      while (skipped.length > 0 && skipped[0].line < line) yield skipped.shift()!
      if (columns === undefined) {
        if (record.some((field) => columnOf(shape, field))) {
          columns = headerColumns(record, source, shape)
          continue
        }

        if (!shape.bare) throw new UsageError(`${source}: line ${line} is not a CSV header naming ${shape.example}, nor a JSON object; nothing was sent`)
        columns = [shape.bare]
      }

      const fields: Record<string, unknown> = Object.create(null)
      for (const [i, column] of columns.entries()) fields[column] = record[i]
      yield {fields, line}
    }
  } catch (error) {
    if (error instanceof CsvError) throw csvRefusal(error, source, limits, lastRead)
    throw error
  }

  yield* skipped
}

/**
 * JSON lines: one object a line, its keys the shape's columns.
 * @yields each record or why it is refused
 */
async function* jsonRecords(bytes: AsyncIterable<Buffer>, source: string, shape: InputShape, limits: InputLimits): AsyncGenerator<InputRecord> {
  for await (const {number: line, text} of readLines(bytes, source, {maxLineLength: limits.maxRecordLength, maxLines: Number.MAX_SAFE_INTEGER})) {
    if (text.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      yield {line, problem: 'not valid JSON'}
      continue
    }

    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      yield {line, problem: 'expected a JSON object'}
      continue
    }

    const fields: Record<string, unknown> = Object.create(null)
    const unknown = Object.keys(value).find((key) => !shape.columns.includes(key))
    if (unknown !== undefined) {
      yield {line, problem: `unknown field ${JSON.stringify(unknown.slice(0, 40))} (the fields are ${shape.columns.join(', ')})`}
      continue
    }

    Object.assign(fields, value)
    yield {fields, line}
  }
}

/**
 * The records of the input, bounded as it is read (see the top of this file).
 * @yields each record, or why it cannot be read
 */
export async function* readRecords(input: AsyncIterable<Buffer | string>, source: string, shape: InputShape, limits: InputLimits): AsyncGenerator<InputRecord> {
  const {first, rest} = await peek(checkedBytes(input, source, limits.maxBytes))
  if (first === undefined) return
  const records = first === 0x7b ? jsonRecords(rest, source, shape, limits) : csvRecords(rest, source, shape, limits)
  let count = 0
  for await (const record of records) {
    if (++count > limits.maxRows) throw new UsageError(`${source} has more than ${limits.maxRows.toLocaleString('en')} rows; split it into several files. Nothing was sent`)
    yield record
  }
}
