/**
 * `--state FILE` where FILE is a JSON state file of the format sandboxes wrote before the state
 * moved into SQLite: imported once, in place. The database is built beside it, the JSON is kept
 * as `<FILE>.v<version>.json` (a hard link, so an existing backup is never overwritten), then the
 * database takes the file's name. A crash at any point leaves the JSON readable under one of
 * the two names. A file that is neither a database nor a JSON state of a known version is refused
 * and left as it is.
 */
import {closeSync, fsyncSync, linkSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync} from 'node:fs'
import {dirname} from 'node:path'

import type {SandboxStore} from './store.js'

import {SANDBOX_STATE_LIMIT_BYTES} from '../../services/sandbox-defaults.js'
import {openStore} from './sqlite-store.js'
import {parseStateText, readStateDocument, StateDocumentError} from './state-document.js'

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1')

/** undefined: no file or an empty one; else whether it starts as a SQLite database does. */
function isDatabase(file: string): boolean | undefined {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }

  try {
    const head = Buffer.alloc(SQLITE_HEADER.length)
    const n = readSync(fd, head, 0, head.length, 0)
    if (n === 0) return undefined
    return n === head.length && head.equals(SQLITE_HEADER)
  } finally {
    closeSync(fd)
  }
}

function sameContent(a: string, b: string): boolean {
  return readFileSync(a).equals(readFileSync(b))
}

export async function importJsonStateFile(
  file: string,
  notice: (message: string) => void,
  load: (store: SandboxStore, document: unknown) => Promise<void>,
): Promise<void> {
  if (isDatabase(file) !== false) return
  // As large as an import may be (PUT /__sandbox/state), and no larger: a string past ~512 MiB would abort the process.
  const {size} = statSync(file)
  if (size > SANDBOX_STATE_LIMIT_BYTES) {
    throw new Error(`the state file ${file} is ${size} bytes, over the ${SANDBOX_STATE_LIMIT_BYTES} bytes a JSON state may have; move it away`)
  }

  const text = readFileSync(file, 'utf8')
  let document: unknown
  try {
    document = parseStateText(text)
  } catch (error) {
    throw new Error(`the state file ${file} is neither a sandbox database nor valid JSON (${(error as Error).message}); move it away or fix it`)
  }

  let version: number
  try {
    version = readStateDocument(document, []).version
  } catch (error) {
    if (error instanceof StateDocumentError) throw new Error(`the state file ${file} is JSON that this opsctl cannot import: ${error.message}`)
    throw error
  }

  const building = `${file}.importing`
  const backup = `${file}.v${version}.json`
  for (const leftover of [building, `${building}-wal`, `${building}-shm`]) rmSync(leftover, {force: true})
  const {store} = openStore(building)
  try {
    await load(store, document)
    store.close()
  } catch (error) {
    store.close()
    rmSync(building, {force: true})
    if (error instanceof StateDocumentError) throw new Error(`the state file ${file} is JSON that this opsctl cannot import: ${error.message}`)
    throw error
  }

  try {
    linkSync(file, backup)
  } catch (error) {
    // a backup from an import cut short is the same file; any other is never replaced
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !sameContent(file, backup)) {
      rmSync(building, {force: true})
      throw new Error(`the state file ${file} is JSON to import, but ${backup} (where its copy would be kept) already exists; move it away`)
    }
  }

  renameSync(building, file)
  try {
    const dir = openSync(dirname(file), 'r')
    fsyncSync(dir)
    closeSync(dir)
  } catch {
    // some file systems refuse fsync on a folder; the rename is still atomic
  }

  notice(`${file} was a JSON state file (version ${version}): imported it into a database (SQLite) at the same path; the JSON is kept as ${backup}`)
}
