import {hash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync} from 'node:fs'

import {isPrivate} from './private-folder.js'

/**
 * One file of the Node 20 compile cache: a header, then V8's cached data for one source file.
 * V8 checks cached data against the length of the source only, so the header holds the sha256 of
 * the exact source the data was made from, and an entry is used only for those bytes.
 *
 * Reads open the file without following a symlink and without waiting on a FIFO, then use it only
 * if it is a regular file of the current user that no one else may write, of a bounded size.
 * Writes go to a temporary file created exclusively (never through a planted file or symlink),
 * renamed into place whole. Anything unexpected means no entry: it costs speed, never an error.
 */
const MAGIC = Buffer.from('opsctl compile cache 1\n')
const HASH_BYTES = 32
const HEADER_BYTES = MAGIC.length + HASH_BYTES
/** Far above the largest entry of the bundle (about 0.4 MB): a bound on what one read can cost. */
export const MAX_ENTRY_BYTES = 16 * 1024 * 1024

const {O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY} = constants

/** Whether this platform can open files as safely as the cache needs (not Windows). */
export const entriesSupported = O_NOFOLLOW !== undefined && O_NONBLOCK !== undefined

/** sha256 of the source (one call: about 1.3 ms for the 1.3 MB a command like `profile list` loads). */
export function sourceHash(source: string): Buffer {
  return hash('sha256', source, 'buffer')
}

/** V8's cached data stored for exactly the source of hash `hash`, if there is a usable entry. */
export function readEntry(file: string, hash: Buffer): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch {
    return undefined
  }

  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || !isPrivate(stats) || stats.size <= HEADER_BYTES || stats.size > MAX_ENTRY_BYTES) return undefined
    const entry = Buffer.allocUnsafe(stats.size)
    let filled = 0
    while (filled < entry.length) {
      const read = readSync(fd, entry, filled, entry.length - filled, filled)
      if (read === 0) return undefined
      filled += read
    }

    const fromSource = entry.subarray(MAGIC.length, HEADER_BYTES)
    return entry.subarray(0, MAGIC.length).equals(MAGIC) && fromSource.equals(hash) ? entry.subarray(HEADER_BYTES) : undefined
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Stores `data` as the entry for the source of hash `hash`, whole or not at all (processes may race for it). */
export function writeEntry(file: string, hash: Buffer, data: Buffer): void {
  const partial = `${file}.${process.pid}.tmp`
  // O_EXCL: fails on anything already there, a symlink included, instead of writing through it.
  const fd = openSync(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    try {
      writeAll(fd, Buffer.concat([MAGIC, hash, data]))
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
