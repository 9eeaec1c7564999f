/**
 * Reading the audit and access logs back (`audit list`, `audit access`, `checkout list`, completion's
 * checkout ids), from the newest end: a damaged line is skipped and named, never a crash. Apart from ./log.ts, which every change command loads to write, so that zod is
 * loaded only by the commands that read.
 */
import {closeSync, constants, fstatSync, openSync, readSync} from 'node:fs'
import * as z from 'zod'

import {UsageError} from '../errors.js'
import {type AuditEntry, auditPath} from './log.js'

/** A line longer than this is no line opsctl wrote (a few hundred bytes each): it is skipped unread. */
export const MAX_AUDIT_LINE_BYTES = 64 * 1024

/**
 * What a line must hold to be read as an entry. Loose: fields of other versions are kept; a line
 * that is not an object (`null`, a number), lacks a required field or has one of the wrong type is
 * damaged (a torn write, a hand edit) and is skipped.
 */
const AuditLine = z.looseObject({
  time: z.string(),
  profile: z.string(),
  env: z.string(),
  operation: z.string(),
  outcome: z.string(),
  checkoutId: z.string().optional(),
  refundId: z.string().optional(),
  webhookId: z.string().optional(),
  reference: z.string().optional(),
  amount: z.looseObject({currency: z.string().optional(), value: z.string()}).optional(),
  reason: z.string().optional(),
  code: z.string().optional(),
  status: z.number().optional(),
  requestId: z.string().optional(),
  message: z.string().optional(),
  reconciled: z.boolean().optional(),
  run: z.string().optional(),
})

/**
 * A line that was skipped: its number and why. Counted from 1 at the file's start; when the read
 * stopped before the start (the read goes from the newest end), counted from 1 at its end instead.
 */
export interface DamagedLine {
  line: number
  why: string
  /** `line` counts back from the last line (1): the read stopped before the file's start. */
  fromEnd?: true
}

/**
 * Which lines of a log a reader wants, so that it reads only as far back as they go. The log is
 * appended in the order lines are written, each stamped with the writer's clock, so it is in time
 * order but for a clock set back (an NTP step, a clock fixed by hand, two machines' clocks on one
 * shared config folder): a line may be older than the one before it. The read therefore goes on
 * past `since` by OUT_OF_ORDER_MARGIN_MS and stops at the first line older than that: a line
 * written up to that much out of order is still found; one more out of order than that, when
 * `since` falls in its gap, is not. `limit` counts lines in the file's order (the newest N written),
 * which the margin does not change.
 */
export interface RecentQuery<T> {
  /** Entries at or after this instant (ms). */
  since?: number
  /** Entries before this instant (ms). */
  until?: number
  /** Only the newest N entries kept (in the file's order). */
  limit?: number
  /** Which entries to keep, beside the time range. */
  match?: (entry: T) => boolean
  /**
   * Called with each entry of the time range read (newest first, kept or not): true stops the read before it. For a
   * reader that needs more than the entries kept (the changes to the newest checkouts created).
   */
  enough?: (entry: T) => boolean
}

/** What a read found: the entries asked for, oldest first, the damaged lines met, and whether the file holds no entry at all. */
export interface RecentLines<T> {
  entries: T[]
  damaged: DamagedLine[]
  empty: boolean
}

/** How far past `since` a read goes on, for lines written while the clock was behind (see RecentQuery). */
export const OUT_OF_ORDER_MARGIN_MS = 24 * 60 * 60 * 1000

/**
 * Entries oldest first, and the damaged lines that were skipped, read from the newest end (see
 * readJsonLines). A change command's lines all go through `appendAudit`.
 */
export async function readAudit(configDir: string, query: RecentQuery<AuditEntry> = {}): Promise<RecentLines<AuditEntry>> {
  return readJsonLines(auditPath(configDir), AuditLine as unknown as z.ZodType<AuditEntry>, query)
}

/**
 * The lines of a JSON-lines file of the config folder read as `schema`, those `query` asks for,
 * oldest first, and those skipped; a missing file is empty. The file is read backwards from its
 * end in chunks, so that "the last hour" of a year of lines costs the last hour (and the margin of
 * RecentQuery): memory holds the entries kept and one chunk. A last line without its newline is a writer's append under way: skipped, unless
 * it is a whole entry (a file edited by hand). A line over MAX_AUDIT_LINE_BYTES is skipped unread.
 */
export async function readJsonLines<T extends {time: string}>(
  file: string,
  schema: z.ZodType<T>,
  query: RecentQuery<T> = {},
): Promise<RecentLines<T>> {
  const {enough, limit, match, since, until} = query
  const oldest = since === undefined ? undefined : since - OUT_OF_ORDER_MARGIN_MS
  const entries: T[] = []
  const damaged: DamagedLine[] = []
  let whole = true
  let anyEntry = false
  let lines = 0
  try {
    for (const {fromEnd, text, unterminated} of linesFromEnd(file)) {
      lines = fromEnd
      if (text === undefined) {
        damaged.push({line: fromEnd, why: `longer than ${MAX_AUDIT_LINE_BYTES} bytes`})
        continue
      }

      if (!text.trim()) continue
      const read = readEntry(text, schema, oldest === undefined && until === undefined)
      if (read.why !== undefined) {
        if (!unterminated) damaged.push({line: fromEnd, why: read.why})
        continue
      }

      anyEntry = true
      if (read.at !== undefined && oldest !== undefined && read.at < oldest) {
        whole = false
        break
      }

      if (read.entry === undefined) continue
      if (enough?.(read.entry)) {
        whole = false
        break
      }

      if (match && !match(read.entry)) continue
      entries.push(read.entry)
      if (limit !== undefined && entries.length >= limit) {
        whole = false
        break
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {entries: [], damaged: [], empty: true}
    throw error
  }

  // Numbered from the start when the start was reached: the total is then known.
  const named = whole ? damaged.map((d) => ({line: lines - d.line + 1, why: d.why})) : damaged.map((d) => ({...d, fromEnd: true as const}))
  return {entries: entries.reverse(), damaged: named.reverse(), empty: whole && !anyEntry}

  /** The entry a line holds, or why it is damaged; with a time range, a line outside it is left unchecked (at only). */
  function readEntry(text: string, lineSchema: z.ZodType<T>, all: boolean): {at?: number; entry?: T; why?: string} {
    // A line as opsctl writes it starts with its time: outside the range, it is passed over unparsed
    // (the day of margin behind --since is most of what "the last hour" reads).
    const stamped = all ? undefined : leadingTime(text)
    if (stamped !== undefined && !inRange(stamped)) return {at: stamped}
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return {why: 'not JSON (a torn write?)'}
    }

    const time = value && typeof value === 'object' ? (value as {time?: unknown}).time : undefined
    const at = typeof time === 'string' ? Date.parse(time) : Number.NaN
    if (!all && !Number.isNaN(at) && !inRange(at)) return {at}
    const why = checkEntry(value, lineSchema)
    if (typeof why === 'string') return {why}
    // An entry without a readable time is outside every range.
    if (!all && Number.isNaN(at)) return {}
    return {at, entry: why.entry}
  }

  function inRange(at: number): boolean {
    return (since === undefined || at >= since) && (until === undefined || at < until)
  }
}

/** The start of a line opsctl writes, before an ISO 8601 instant (toISOString's 24 characters). */
const TIME_PREFIX = '{"time":"'

/** The time a line starts with, as opsctl writes its lines; undefined for any other line (it is then parsed whole). */
function leadingTime(text: string): number | undefined {
  // `{"time":"` then toISOString's 24 characters and a quote: checked by its fixed characters, then by Date.parse
  const end = TIME_PREFIX.length + 24
  if (text[end] !== '"' || text[end - 1] !== 'Z' || !text.startsWith(TIME_PREFIX)) return undefined
  const at = Date.parse(text.slice(TIME_PREFIX.length, end))
  return Number.isNaN(at) ? undefined : at
}

/** The entry a parsed line holds; else why it is damaged. */
function checkEntry<T>(value: unknown, schema: z.ZodType<T>): string | {entry: T} {
  // A null field is an absent one (other writers of JSON lines write null for "none"); a required one is then missing.
  const present =
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null))
      : value
  const parsed = schema.safeParse(present)
  if (parsed.success) return {entry: parsed.data}
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return `not an entry (${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value})`
  const [issue] = parsed.error.issues
  const field = String(issue.path[0])
  return `${issue.path.join('.')}: ${(present as Record<string, unknown>)[field] === undefined ? 'missing' : 'of the wrong type'}`
}

/** Bytes read at once from the end. */
export const READ_CHUNK_BYTES = 64 * 1024

/**
 * The file's lines, last first, with their numbers counted back from the last (1). Read in
 * chunks of READ_CHUNK_BYTES from the end, synchronously, with one file descriptor, up to the size
 * it had when opened (lines appended meanwhile are the next read's). A line is decoded only once
 * all its bytes are joined, so a character split by a chunk's edge reads whole. Only a regular
 * file is read: a symbolic link, a FIFO (which would wait for a writer for ever) or a folder in
 * the log's place is an error naming it (exit 2).
 *
 * @yields each line: its number from the end, its text (undefined for a line too long to read),
 *   and whether it is the last line, without its newline
 */
export function* linesFromEnd(file: string, chunkBytes = READ_CHUNK_BYTES): Generator<{fromEnd: number; text?: string; unterminated?: true}> {
  const fd = openLog(file)
  try {
    const {size} = fstatSync(fd)
    const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(size, 1)))
    // The bytes of the line being joined that came after this chunk (a line's end read first), in file order.
    let after: Buffer[] = []
    let afterBytes = 0
    let tooLong = false
    let fromEnd = 0
    // The first line met is the file's last: unterminated unless the file ends with a newline.
    let last = true
    const line = (head: Buffer): {fromEnd: number; text?: string; unterminated?: true} | undefined => {
      const bytes = head.length + afterBytes
      const unterminated = last
      const long = tooLong || bytes > MAX_AUDIT_LINE_BYTES
      const text = long ? undefined : (after.length === 0 ? head : Buffer.concat([head, ...after])).toString('utf8')
      last = false
      after = []
      afterBytes = 0
      tooLong = false
      // The empty piece after a final newline is no line.
      if (unterminated && bytes === 0) return undefined
      fromEnd++
      return unterminated ? {fromEnd, text, unterminated} : {fromEnd, text}
    }

    // A line with a newline on both sides, inside one chunk: never the last, and too long only for a chunk over the bound.
    const wholeLine = (text: string): {fromEnd: number; text?: string} => {
      last = false
      fromEnd++
      return text.length * 3 > MAX_AUDIT_LINE_BYTES && Buffer.byteLength(text) > MAX_AUDIT_LINE_BYTES ? {fromEnd} : {fromEnd, text}
    }

    let position = size
    while (position > 0) {
      const length = Math.min(buffer.length, position)
      position -= length
      const bytesRead = readSync(fd, buffer, 0, length, position)
      if (bytesRead !== length) throw new Error(`${file} became shorter while it was read`)
      const chunk = buffer.subarray(0, length)
      let end = length
      const lastNewline = chunk.lastIndexOf(10)
      if (lastNewline !== -1) {
        // the line this chunk ends in, joined with its bytes from the chunks after it
        const found = line(chunk.subarray(lastNewline + 1, end))
        if (found) yield found
        end = lastNewline
        // The whole lines between the chunk's first and last newline, decoded at once (a newline byte
        // is never inside a UTF-8 character) and split: a chunk holds a few hundred of them.
        const firstNewline = chunk.indexOf(10)
        if (firstNewline < lastNewline) {
          const inner = chunk.toString('utf8', firstNewline + 1, lastNewline).split('\n')
          for (let i = inner.length - 1; i >= 0; i--) yield wholeLine(inner[i])
        }

        end = firstNewline
      }

      // The end of a line that began in an earlier chunk: kept (copied: the buffer is read into again).
      if (end > 0) {
        if (tooLong || afterBytes + end > MAX_AUDIT_LINE_BYTES) {
          tooLong = true
          after = []
          afterBytes = 0
        } else {
          after.unshift(Buffer.from(chunk.subarray(0, end)))
          afterBytes += end
        }
      }
    }

    const first = line(Buffer.alloc(0))
    if (first) yield first
  } finally {
    closeSync(fd)
  }
}

/** Why a log could not be opened for reading, from its errno code (ENOENT is a missing log: the caller's). */
const READ_FAILURES: Record<string, string> = {
  EACCES: 'permission denied',
  EISDIR: 'it is a folder',
  ELOOP: 'it is a symbolic link, and opsctl reads its logs only from a real file',
  ENOTDIR: 'a folder on its path is a file',
  EPERM: 'permission denied',
}

/** The log's descriptor: never through a symbolic link, never waiting on a FIFO, only a regular file. */
function openLog(file: string): number {
  const {O_NOFOLLOW, O_NONBLOCK, O_RDONLY} = constants
  let fd: number
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (error) {
    const reason = READ_FAILURES[(error as NodeJS.ErrnoException).code ?? '']
    throw reason ? new UsageError(`Cannot read ${file}: ${reason}`) : error
  }

  if (!fstatSync(fd).isFile()) {
    closeSync(fd)
    throw new UsageError(`Cannot read ${file}: it is not a regular file`)
  }

  return fd
}

/** The one warning about skipped lines, naming them (the first ten), or undefined when none was. */
export function damagedWarning(file: string, damaged: readonly DamagedLine[]): string | undefined {
  if (damaged.length === 0) return undefined
  const named = damaged
    .slice(0, 10)
    .map((d) => `line ${d.line}${d.fromEnd ? ' from the end' : ''} (${d.why})`)
    .join(', ')
  const more = damaged.length > 10 ? ` and ${damaged.length - 10} more` : ''
  return `Warning: skipped ${damaged.length} damaged line(s) of ${file}: ${named}${more}; the rest is shown`
}
