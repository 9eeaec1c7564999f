/**
 * Where a bulk run reads its rows. It reads them twice (the plan, then the sends), so standard
 * input is first copied to a private temporary file; a file must stay as it was between the two
 * reads (its size and modification time are compared).
 */
import {createReadStream, createWriteStream} from 'node:fs'
import {mkdtemp, rm, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {UsageError} from '../../errors.js'
import {type Line, type LineLimits, readLines} from './lines.js'

/** Rows in one file; 4 KiB a line. Both bound what a plan keeps and how long a run may be. */
export const INPUT_LIMITS: LineLimits = {maxLineLength: 4096, maxLines: 50_001}

export interface BulkInput {
  /** For messages: the path as given, or "standard input". */
  label: string
  lines(): AsyncGenerator<Line>
  /** Refuses (exit 2) when the file changed since it was opened. */
  unchanged(): Promise<void>
  close(): Promise<void>
}

export async function openInput(path: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<BulkInput> {
  let file = path
  let folder: string | undefined
  if (path === '-') {
    folder = await mkdtemp(join(tmpdir(), 'opsctl-bulk-'))
    file = join(folder, 'rows')
    let bytes = 0
    const cap = INPUT_LIMITS.maxLineLength * INPUT_LIMITS.maxLines
    const bounded = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length
        done(bytes > cap ? new UsageError(`Standard input is larger than a bulk file may be (${INPUT_LIMITS.maxLines - 1} rows); nothing was sent`) : null, chunk)
      },
    })
    try {
      await pipeline(stdin, bounded, createWriteStream(file, {mode: 0o600}))
    } catch (error) {
      await rm(folder, {force: true, recursive: true})
      throw error
    }
  }

  const label = path === '-' ? 'standard input' : path
  let first
  try {
    first = await stat(file)
  } catch (error) {
    throw new UsageError(`Cannot read ${label}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}; nothing was sent`)
  }

  if (!first.isFile()) throw new UsageError(`${label} is not a file; nothing was sent`)
  return {
    async close() {
      if (folder) await rm(folder, {force: true, recursive: true})
    },
    label,
    lines: () => readLines(createReadStream(file), label, INPUT_LIMITS),
    async unchanged() {
      const now = await stat(file)
      if (now.size !== first.size || now.mtimeMs !== first.mtimeMs) throw new UsageError(`${label} changed while it was being planned; run again. Nothing was sent`)
    },
  }
}
