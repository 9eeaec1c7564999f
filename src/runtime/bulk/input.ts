/**
 * Where a bulk run reads its rows. It reads them twice (the plan, then the sends), so standard
 * input or a named pipe is first copied to a private temporary file (bounded as it is copied);
 * a file must stay as it was between the two reads (its size and modification time are compared).
 */
import {createReadStream, createWriteStream} from 'node:fs'
import {mkdtemp, rm, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {UsageError} from '../../errors.js'
import {checkedBytes, type InputLimits, type InputRecord, type InputShape, openSource, readRecords} from '../file-input.js'

/** Rows in one file, 4 KiB a record, and the bytes of that many records. */
export const INPUT_LIMITS: InputLimits = {maxBytes: 4096 * 50_001, maxRecordLength: 4096, maxRows: 50_000}

export interface BulkInput {
  /** For messages: the path as given, or "standard input". */
  label: string
  records(): AsyncGenerator<InputRecord>
  /** Refuses (exit 2) when the file changed since it was opened. */
  unchanged(): Promise<void>
  close(): Promise<void>
}

export async function openInput(path: string, shape: InputShape, stdin: NodeJS.ReadableStream = process.stdin): Promise<BulkInput> {
  const source = await openSource(path, stdin)
  let file = source.file
  let folder: string | undefined
  if (file === undefined) {
    folder = await mkdtemp(join(tmpdir(), 'opsctl-bulk-'))
    file = join(folder, 'rows')
    try {
      await pipeline(Readable.from(checkedBytes(source.open(), source.label, INPUT_LIMITS.maxBytes)), createWriteStream(file, {mode: 0o600}))
    } catch (error) {
      await rm(folder, {force: true, recursive: true})
      throw error
    }
  }

  const copy = file
  const first = await stat(copy)
  return {
    async close() {
      if (folder) await rm(folder, {force: true, recursive: true})
    },
    label: source.label,
    records: () => readRecords(createReadStream(copy), source.label, shape, INPUT_LIMITS),
    async unchanged() {
      const now = await stat(copy)
      if (now.size !== first.size || now.mtimeMs !== first.mtimeMs) throw new UsageError(`${source.label} changed while it was being planned; run again. Nothing was sent`)
    },
  }
}
