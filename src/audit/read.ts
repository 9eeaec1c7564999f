/**
 * Reading the audit log back (`audit list`, `checkout list`): a damaged line is skipped and named,
 * never a crash. Apart from ./log.ts, which every change command loads to write, so that zod is
 * loaded only by the commands that read.
 */
import {createReadStream} from 'node:fs'
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

/** A line that was skipped: its number (from 1) and why. */
export interface DamagedLine {
  line: number
  why: string
}

/**
 * Entries oldest first, and the damaged lines that were skipped. The file is read as a stream of
 * lines, and a line over MAX_AUDIT_LINE_BYTES is dropped as it arrives, so a damaged file costs
 * bounded memory.
 */
export async function readAudit(configDir: string): Promise<{entries: AuditEntry[]; damaged: DamagedLine[]}> {
  return readJsonLines(auditPath(configDir), AuditLine as unknown as z.ZodType<AuditEntry>)
}

/** The lines of a JSON-lines file of the config folder read as `schema` (oldest first), and those skipped; a missing file is empty. */
export async function readJsonLines<T>(file: string, schema: z.ZodType<T>): Promise<{entries: T[]; damaged: DamagedLine[]}> {
  const entries: T[] = []
  const damaged: DamagedLine[] = []
  try {
    for await (const {line, text} of jsonLines(file)) {
      if (text === undefined) {
        damaged.push({line, why: `longer than ${MAX_AUDIT_LINE_BYTES} bytes`})
        continue
      }

      if (!text.trim()) continue
      const why = readEntry(text, schema, entries)
      if (why) damaged.push({line, why})
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {entries: [], damaged: []}
    throw error
  }

  return {entries, damaged}
}

/** Adds the entry a line holds; else says why it is damaged. */
function readEntry<T>(text: string, schema: z.ZodType<T>, entries: T[]): string | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return 'not JSON (a torn write?)'
  }

  // A null field is an absent one (other writers of JSON lines write null for "none"); a required one is then missing.
  const present = value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value
  const parsed = schema.safeParse(present)
  if (parsed.success) {
    entries.push(parsed.data)
    return undefined
  }

  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `not an entry (${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value})`
  const [issue] = parsed.error.issues
  const field = String(issue.path[0])
  return `${issue.path.join('.')}: ${(present as Record<string, unknown>)[field] === undefined ? 'missing' : 'of the wrong type'}`
}

/**
 * The file's lines with their numbers.
 *
 * @yields each line: its number, and its text (undefined for a line too long to read)
 */
async function* jsonLines(file: string): AsyncGenerator<{line: number; text?: string}> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let tooLong = false
  let line = 1
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end)
      yield tooLong || pendingBytes + piece.length > MAX_AUDIT_LINE_BYTES ? {line} : {line, text: Buffer.concat([...pending, piece]).toString('utf8')}
      pending = []
      pendingBytes = 0
      tooLong = false
      line++
      start = end + 1
    }

    const rest = chunk.subarray(start)
    if (tooLong || pendingBytes + rest.length > MAX_AUDIT_LINE_BYTES) {
      tooLong = true
      pending = []
      pendingBytes = 0
    } else if (rest.length > 0) {
      pending.push(rest)
      pendingBytes += rest.length
    }
  }

  if (tooLong) yield {line}
  else if (pendingBytes > 0) yield {line, text: Buffer.concat(pending).toString('utf8')}
}

/** The one warning about skipped lines, naming them (the first ten), or undefined when none was. */
export function damagedWarning(file: string, damaged: readonly DamagedLine[]): string | undefined {
  if (damaged.length === 0) return undefined
  const named = damaged
    .slice(0, 10)
    .map((d) => `line ${d.line} (${d.why})`)
    .join(', ')
  const more = damaged.length > 10 ? ` and ${damaged.length - 10} more` : ''
  return `Warning: skipped ${damaged.length} damaged line(s) of ${file}: ${named}${more}; the rest is shown`
}
