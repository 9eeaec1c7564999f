/**
 * The journal of a bulk run: append-only JSON lines next to the input (or where --journal says).
 * Each row's intent is written and flushed to disk (fdatasync) BEFORE its request goes out, and
 * its outcome after the answer. A rerun reads it: a row applied is skipped; a row with an intent
 * and no outcome may have been applied by a run that was killed, so it is read back from the
 * service before anything is sent again.
 *
 * The journal belongs to one input: its first line holds the kind (refund or void) and a SHA-256 of
 * the input's rows, and a journal of another input is refused. A line that cannot be read (a run
 * killed while writing it, a file edited by hand) is reported and trusted for nothing: its row is
 * treated as never journalled, so the service's own state decides (a refund or void that went out
 * makes the rules refuse the row, never send it twice).
 */
import {constants, type FileHandle, lstat, open, rm} from 'node:fs/promises'
import * as z from 'zod'

import type {BulkKind} from './rows.js'

import {UsageError} from '../../errors.js'
import {readConfigText} from '../../profiles/private-files.js'
import {readLines} from './lines.js'

/** A journal larger than this is not read (it would be one of far more rows than a file may hold). */
export const JOURNAL_MAX_BYTES = 64 * 1024 * 1024
const JOURNAL_LINE_MAX = 64 * 1024

const Header = z.object({journal: z.literal('opsctl-bulk'), version: z.literal(1), kind: z.enum(['refund', 'void']), input: z.string().regex(/^[\da-f]{64}$/)})
const Intent = z.object({
  t: z.literal('intent'),
  id: z.string().min(1).max(200),
  amount: z.string().optional(),
  currency: z.string().optional(),
  /** The refunds the checkout had before this one was sent: a new one is this row's. */
  known: z.array(z.string().max(200)).max(100).optional(),
})
const Outcome = z.object({
  t: z.literal('outcome'),
  id: z.string().min(1).max(200),
  outcome: z.enum(['applied', 'refused', 'not-applied', 'unknown']),
  refundId: z.string().max(200).optional(),
  code: z.string().max(100).optional(),
})
export type JournalIntent = z.infer<typeof Intent>
export type JournalOutcome = z.infer<typeof Outcome>

export interface RowJournal {
  intent?: JournalIntent
  /** The outcome of that intent (undefined: none was written: the run stopped in between). */
  outcome?: JournalOutcome
}

export interface JournalState {
  header?: z.infer<typeof Header>
  rows: Map<string, RowJournal>
  /** Line numbers that could not be read. */
  damaged: number[]
}

/** Reads a journal; an absent file is an empty one. Bounded: its size first, then each line. */
export async function readJournal(path: string, kind: BulkKind): Promise<JournalState> {
  const state: JournalState = {damaged: [], rows: new Map()}
  let size: number
  try {
    const found = await lstat(path)
    // a link could point the journal's appends at any file the user can write
    if (found.isSymbolicLink()) throw new UsageError(`The journal ${path} is a symbolic link; a journal is written only to a real file. Pass --journal with another path. Nothing was sent`)
    size = found.size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return state
    throw error
  }

  if (size > JOURNAL_MAX_BYTES) throw new UsageError(`The journal ${path} is larger than ${JOURNAL_MAX_BYTES / 1024 / 1024} MiB; it is not read. Nothing was sent`)
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    for await (const {number, text} of readLines(handle.createReadStream({autoClose: false}), path, {maxLineLength: JOURNAL_LINE_MAX, maxLines: Number.MAX_SAFE_INTEGER})) {
      if (text === '') continue
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        state.damaged.push(number)
        continue
      }

      if (number === 1) {
        const header = Header.safeParse(value)
        if (!header.success) throw new UsageError(`${path} is not an opsctl bulk journal (its first line is not one); pass another --journal. Nothing was sent`)
        if (header.data.kind !== kind) throw new UsageError(`${path} is the journal of a bulk ${header.data.kind}, not of a ${kind}; pass another --journal. Nothing was sent`)
        state.header = header.data
        continue
      }

      const intent = Intent.safeParse(value)
      if (intent.success) {
        state.rows.set(intent.data.id, {intent: intent.data})
        continue
      }

      const outcome = Outcome.safeParse(value)
      const row = outcome.success ? state.rows.get(outcome.data.id) : undefined
      if (outcome.success && row?.intent && !row.outcome) row.outcome = outcome.data
      else state.damaged.push(number)
    }
  } finally {
    await handle.close()
  }

  // Empty, or only a first line cut short: a run killed while it created the journal, before any intent.
  if (!state.header && state.rows.size === 0 && state.damaged.every((n) => n === 1)) return state
  if (!state.header) throw new UsageError(`${path} is not an opsctl bulk journal (it has no first line); pass another --journal. Nothing was sent`)
  return state
}

/** The run's hold on a journal: one run at a time, or two runs could each send the same row. */
export class JournalLock {
  private constructor(private readonly path: string) {}

  static async take(journal: string): Promise<JournalLock> {
    const path = `${journal}.lock`
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(path, 'wx', 0o600)
        await handle.writeFile(String(process.pid))
        await handle.close()
        return new JournalLock(path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        const pid = Number(readLockOwner(path).trim())
        if (Number.isSafeInteger(pid) && pid > 0 && processAlive(pid)) {
          throw new UsageError(`Another run (process ${pid}) is using the journal ${journal}; wait for it to end. Nothing was sent`)
        }

        // Its process is gone (killed): the lock is stale.
        await rm(path, {force: true})
      }
    }

    throw new UsageError(`Could not take the lock ${path}; nothing was sent`)
  }

  async release(): Promise<void> {
    await rm(this.path, {force: true})
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Appends to the journal; intents are on disk (fdatasync) when `intent()` resolves. */
export class JournalWriter {
  private chain: Promise<unknown> = Promise.resolve()

  private constructor(private readonly handle: FileHandle) {}

  /**
   * Opens (creating, mode 0600) and writes the header when there is no journal yet; `existing`
   * false also empties a file that held nothing trusted (see readJournal).
   */
  static async open(path: string, header: {kind: BulkKind; input: string}, existing: boolean): Promise<JournalWriter> {
    const truncate = existing ? 0 : constants.O_TRUNC
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | truncate, 0o600)
    const writer = new JournalWriter(handle)
    if (!existing) await writer.append({journal: 'opsctl-bulk', version: 1, ...header}, true)
    return writer
  }

  async intent(entry: Omit<JournalIntent, 't'>): Promise<void> {
    await this.append({t: 'intent', ...entry}, true)
  }

  async outcome(entry: Omit<JournalOutcome, 't'>): Promise<void> {
    await this.append({t: 'outcome', ...entry}, false)
  }

  async close(): Promise<void> {
    await this.chain.catch(() => {})
    await this.handle.datasync().catch(() => {})
    await this.handle.close()
  }

  /** One write per line (O_APPEND), one after the other; `sync` waits for the disk. */
  private append(entry: object, sync: boolean): Promise<void> {
    const line = JSON.stringify(entry) + '\n'
    const done = this.chain.then(async () => {
      await this.handle.write(line)
      if (sync) await this.handle.datasync()
    })
    this.chain = done.catch(() => {})
    return done
  }
}

/** The process id a lock file holds, as text ('' when it cannot be read: a FIFO or a device there is never waited on). */
function readLockOwner(path: string): string {
  try {
    return readConfigText(path, 64) ?? ''
  } catch {
    return ''
  }
}
