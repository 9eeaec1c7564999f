/**
 * Reading the audit and access logs back (`audit list`, `audit access`, `checkout list`, completion's
 * checkout ids), from the newest end: a damaged line is skipped and named, never a crash. Apart from ./log.ts, which every change command loads to write, so that zod is
 * loaded only by the commands that read.
 */
// fs.promises loads on first use (src/profiles/private-files.ts says why)
import {promises as fs} from 'node:fs'
import * as z from 'zod'

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
    for await (const {fromEnd, text, unterminated} of linesFromEnd(file)) {
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
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return {why: 'not JSON (a torn write?)'}
    }

    const time = value && typeof value === 'object' ? (value as {time?: unknown}).time : undefined
    const at = typeof time === 'string' ? Date.parse(time) : Number.NaN
    if (!all && !Number.isNaN(at) && !((since === undefined || at >= since) && (until === undefined || at < until))) return {at}
    const why = checkEntry(value, lineSchema)
    if (typeof why === 'string') return {why}
    // An entry without a readable time is outside every range.
    if (!all && Number.isNaN(at)) return {}
    return {at, entry: why.entry}
  }
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
 * chunks of READ_CHUNK_BYTES from the end with one file handle, up to the size it had when opened
 * (lines appended meanwhile are the next read's). A line is decoded only once all its bytes are
 * joined, so a character split by a chunk's edge reads whole.
 *
 * @yields each line: its number from the end, its text (undefined for a line too long to read),
 *   and whether it is the last line, without its newline
 */
export async function* linesFromEnd(
  file: string,
  chunkBytes = READ_CHUNK_BYTES,
): AsyncGenerator<{fromEnd: number; text?: string; unterminated?: true}> {
  const handle = await fs.open(file, 'r')
  try {
    const {size} = await handle.stat()
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
      const text = long ? undefined : Buffer.concat([head, ...after]).toString('utf8')
      last = false
      after = []
      afterBytes = 0
      tooLong = false
      // The empty piece after a final newline is no line.
      if (unterminated && bytes === 0) return undefined
      fromEnd++
      return {fromEnd, ...(long ? {} : {text}), ...(unterminated ? {unterminated} : {})}
    }

    let position = size
    while (position > 0) {
      const length = Math.min(buffer.length, position)
      position -= length
      const {bytesRead} = await handle.read(buffer, 0, length, position)
      if (bytesRead !== length) throw new Error(`${file} became shorter while it was read`)
      const chunk = buffer.subarray(0, length)
      let end = length
      for (
        let newline = end > 0 ? chunk.lastIndexOf(10, end - 1) : -1;
        newline !== -1;
        newline = end > 0 ? chunk.lastIndexOf(10, end - 1) : -1
      ) {
        const found = line(chunk.subarray(newline + 1, end))
        if (found) yield found
        end = newline
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
    await handle.close()
  }
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
