import {closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

/**
 * The `--state` file: JSON, `{"version": 2, "<service>": {...}}`, where each Map of a module's
 * state is written as an array of `[key, value]` pairs. Version 1 files (written before the
 * state used Maps) kept those tables as objects; they still load.
 */
export const STATE_VERSION = 2

/** The state as the file holds it: Maps become arrays of [key, value] pairs. */
export function serializeState(state: unknown): string {
  return JSON.stringify(state, (_key, value: unknown) => (value instanceof Map ? [...value] : value))
}

function temporaryName(file: string, pid: number): string {
  return join(dirname(file), `.${basename(file)}.${pid}.tmp`)
}

/**
 * Saves the sandbox state so that a kill at any moment leaves either the old or the new file,
 * never a torn one: write a temporary file beside it, fsync it, rename it over the old one,
 * then fsync the folder so the rename itself is durable.
 */
export function saveAtomically(file: string, text: string): void {
  const temporary = temporaryName(file, process.pid)
  const fd = openSync(temporary, 'w', 0o600)
  try {
    writeSync(fd, text)
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

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temporary files a sandbox killed in the middle of a save left beside the state
 * file (`.<state>.<pid>.tmp`), except one a sandbox still running is writing.
 */
export function removeStaleTemporaries(file: string): void {
  const prefix = `.${basename(file)}.`
  let names: string[]
  try {
    names = readdirSync(dirname(file))
  } catch {
    return
  }

  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    const pid = Number(name.slice(prefix.length, -'.tmp'.length))
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) continue
    rmSync(join(dirname(file), name), {force: true})
  }
}

/**
 * Reads a saved state; undefined when there is no file yet. A corrupt file is an error, never
 * replaced. Every `__proto__` key is dropped while parsing, so no file can reach a prototype.
 */
export function loadState(file: string): unknown {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }

  try {
    return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value))
  } catch (error) {
    throw new Error(`the state file ${file} is not valid JSON (${(error as Error).message}); move it away or fix it`)
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A saved table back as a Map: [key, value] pairs (version 2) or an object (version 1). */
function toMap(saved: unknown, version: number, where: string): Map<string, unknown> {
  if (version === 1 && isRecord(saved)) return new Map(Object.entries(saved))
  const pairs = Array.isArray(saved) && saved.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string')
  if (version >= 2 && pairs) return new Map(saved as [string, unknown][])
  throw new Error(`the state file's ${where} is not a table as version ${version} writes it; move the file away or fix it`)
}

/**
 * The state loaded from a file, shaped by `empty` (every module's empty state): each field of a
 * module takes its saved value, a Map field is rebuilt as a Map, a field the file lacks (written
 * by an older sandbox) keeps its empty value, and anything the modules do not know is left out.
 */
export function reviveState<T extends object>(saved: unknown, empty: T): T {
  const version = isRecord(saved) ? saved.version : undefined
  if (!isRecord(saved) || typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new Error('the state file has no version; it was not written by an opsctl sandbox')
  }

  if (version > STATE_VERSION) {
    throw new Error(`the state file is version ${version}, written by a newer opsctl; this one reads up to version ${STATE_VERSION}`)
  }

  const state: Record<string, unknown> = {...empty, version: STATE_VERSION}
  for (const [service, template] of Object.entries(empty as Record<string, unknown>)) {
    const stored = saved[service]
    if (!isRecord(template) || !isRecord(stored)) continue
    const module: Record<string, unknown> = {...template}
    for (const [field, initial] of Object.entries(template)) {
      if (!Object.hasOwn(stored, field)) continue
      module[field] = initial instanceof Map ? toMap(stored[field], version, `${service}.${field}`) : stored[field]
    }

    state[service] = module
  }

  return state as T
}
