import {closeSync, constants, fstatSync, openSync, readvSync, renameSync, unlinkSync, writeSync} from 'node:fs'

import {isPrivate} from './private-folder.js'

/**
 * One file of the Node 20 compile cache: a header, the exact source the entry was made from
 * (UTF-8), then V8's cached data for it. V8 checks cached data against the length of the source
 * only, so an entry is used only when its source is byte for byte the one being compiled. A copy
 * compared in full is exact, and cheaper here than a sha256: encoding and comparing the 1.3 MB that
 * `profile list` loads takes about 0.8 ms, while node:crypto, which a warm command otherwise never
 * loads, costs about 3.5 ms of CPU to load and initialise, before hashing anything.
 *
 * Reads open the file without following a symlink and without waiting on a FIFO, then use it only
 * if it is a regular file of the current user that no one else may write, of a bounded size.
 * Writes go to a temporary file created exclusively (never through a planted file or symlink),
 * renamed into place whole. Anything unexpected means no entry: it costs speed, never an error.
 */
const MAGIC = Buffer.from('opsctl compile cache, format 2\n\n')
/** MAGIC, the source's length in bytes (uint32 LE), four zero bytes; then the source, padded to 8 bytes. */
const HEADER_BYTES = MAGIC.length + 8
/** Far above the largest entry of the bundle (about 1.2 MB): a bound on what one read can cost. */
export const MAX_ENTRY_BYTES = 16 * 1024 * 1024

const {O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY} = constants

/** Whether this platform can open files as safely as the cache needs (not Windows). */
export const entriesSupported = O_NOFOLLOW !== undefined && O_NONBLOCK !== undefined

/** Where V8's data starts: aligned to 8 bytes, as V8 wants it (else it copies it). */
const dataStart = (sourceBytes: number) => Math.ceil((HEADER_BYTES + sourceBytes) / 8) * 8

/**
 * Room for the source being compiled and the stored one, kept between entries: a command reads
 * some 1.3 MB of sources, and fresh buffers for them cost more than comparing them.
 */
let scratch = Buffer.alloc(0)

/** V8's cached data stored for exactly `source` (text, or its UTF-8 bytes), if there is a usable entry. */
export function readEntry(file: string, source: Buffer | string): Buffer | undefined {
  return readPrivateFile(file, MAX_ENTRY_BYTES, (fd, size) => {
    if (size <= HEADER_BYTES) return undefined
    // The source as UTF-8, in room that any source longer than this file can hold overflows
    // (write() stops within 3 bytes of the end), so that what fits is the whole source.
    const longest = size - HEADER_BYTES
    const capacity = typeof source === 'string' ? longest + 4 : 0
    if (scratch.length < capacity + size) scratch = Buffer.allocUnsafe(capacity + size)
    const compiling = typeof source === 'string' ? scratch.subarray(0, scratch.write(source, 0, capacity)) : source
    if (compiling.length > longest) return undefined
    const start = dataStart(compiling.length)
    if (start >= size) return undefined
    // Header, source and padding into the scratch, V8's data into a buffer of its own: one read.
    const stored = scratch.subarray(capacity, capacity + start)
    const data = Buffer.allocUnsafe(size - start)
    if (readvSync(fd, [stored, data], 0) !== size) return undefined
    const matches =
      stored.subarray(0, MAGIC.length).equals(MAGIC) &&
      stored.readUInt32LE(MAGIC.length) === compiling.length &&
      stored.subarray(HEADER_BYTES, HEADER_BYTES + compiling.length).equals(compiling)
    return matches ? data : undefined
  })
}

/**
 * An entry's source and V8's data as stored, without a source to compare them with: for a pack
 * whose files are, by their stamp (./command-pack.ts), those it was made from.
 */
export function readStoredEntry(file: string): undefined | {data: Buffer; source: Buffer} {
  return readPrivateFile(file, MAX_ENTRY_BYTES, (fd, size) => {
    if (size <= HEADER_BYTES) return undefined
    const whole = Buffer.allocUnsafe(size)
    if (readvSync(fd, [whole], 0) !== size || !whole.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
    const sourceBytes = whole.readUInt32LE(MAGIC.length)
    const start = dataStart(sourceBytes)
    if (start >= size) return undefined
    return {data: whole.subarray(start), source: whole.subarray(HEADER_BYTES, HEADER_BYTES + sourceBytes)}
  })
}

/** Stores `data` as the entry for `source`, whole or not at all (processes may race for it). */
export function writeEntry(file: string, source: Buffer | string, data: Buffer): void {
  const sourceBytes = typeof source === 'string' ? Buffer.from(source) : source
  const entry = Buffer.alloc(dataStart(sourceBytes.length) + data.length)
  MAGIC.copy(entry)
  entry.writeUInt32LE(sourceBytes.length, MAGIC.length)
  sourceBytes.copy(entry, HEADER_BYTES)
  data.copy(entry, dataStart(sourceBytes.length))
  writeWhole(file, entry)
}

/** A small text file of the cache (not code), read as safely as an entry: undefined when unusable. */
export function readPrivateText(file: string, maxBytes: number): string | undefined {
  return readPrivateFile(file, maxBytes, (fd, size) => {
    const bytes = Buffer.allocUnsafe(size)
    return readvSync(fd, [bytes], 0) === size ? bytes.toString('utf8') : undefined
  })
}

/**
 * What `read` makes of a file of the cache, opened without following a symlink or waiting on a
 * FIFO, and read only if it is a regular file of the current user's alone of at most `maxBytes`.
 */
function readPrivateFile<T>(file: string, maxBytes: number, read: (fd: number, size: number) => T | undefined): T | undefined {
  let fd: number
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch {
    return undefined
  }

  try {
    const stats = fstatSync(fd)
    return stats.isFile() && isPrivate(stats) && stats.size <= maxBytes ? read(fd, stats.size) : undefined
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Writes a file of the cache whole or not at all: a temporary file created exclusively, renamed into place. */
export function writeWhole(file: string, bytes: Buffer): void {
  const partial = `${file}.${process.pid}.tmp`
  // O_EXCL: fails on anything already there, a symlink included, instead of writing through it.
  const fd = openSync(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    try {
      writeAll(fd, bytes)
    } finally {
      closeSync(fd)
    }

    // rename replaces whatever is at `file`, a symlink included, and never writes through it.
    renameSync(partial, file)
  } catch (error) {
    try {
      unlinkSync(partial)
    } catch {
      // already gone
    }

    throw error
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written)
}
