import {closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

/**
 * Saves the sandbox state so that a kill at any moment leaves either the old or the new file,
 * never a torn one: write a temporary file beside it, fsync it, rename it over the old one,
 * then fsync the folder so the rename itself is durable.
 */
export function saveAtomically(file: string, data: unknown): void {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`)
  const fd = openSync(temporary, 'w', 0o600)
  try {
    writeSync(fd, JSON.stringify(data))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }

  renameSync(temporary, file)
  try {
    const dir = openSync(dirname(file), 'r')
    fsyncSync(dir)
    closeSync(dir)
  } catch {
    // some file systems refuse fsync on a folder; the rename is still atomic
  }
}

/** Reads a saved state; undefined when there is no file yet. A corrupt file is an error, never replaced. */
export function loadState(file: string): unknown {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }

  try {
    return JSON.parse(text)
  } catch (error) {
    throw new Error(`the state file ${file} is not valid JSON (${(error as Error).message}); move it away or fix it`)
  }
}
