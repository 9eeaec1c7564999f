/**
 * The ids of the newest events the signed-in user's listings showed on this machine, per profile:
 * what Tab offers for an event id without asking the service (`opsctl complete` reads no network).
 * Ids only, no event data; 0600 in the config folder like the rest of it. A file that is not what
 * this writes is read as empty and replaced.
 */
import {renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {isIdSafe} from './id-safe.js'
import {ensurePrivateFolder, PRIVATE_FILE_MODE, readConfigText} from './private-files.js'

const FILE = 'recent-events.json'
/** How many ids are kept per profile, newest first. */
export const RECENT_EVENT_IDS = 50
/** A larger file is not read: it is not one this writes. */
const MAX_BYTES = 256 * 1024

/** Profile name -> ids, newest first; a Map, since the names come from users. */
function readAll(configDir: string): Map<string, string[]> {
  const table = new Map<string, string[]>()
  try {
    const text = readConfigText(join(configDir, FILE), MAX_BYTES)
    if (text === undefined) return table
    const json = JSON.parse(text) as unknown
    if (!json || typeof json !== 'object' || Array.isArray(json)) return table
    for (const [profile, ids] of Object.entries(json)) {
      if (Array.isArray(ids)) table.set(profile, ids.filter((id): id is string => typeof id === 'string' && isIdSafe(id)).slice(0, RECENT_EVENT_IDS))
    }
  } catch {
    // none yet, or unreadable: nothing to offer
  }

  return table
}

export function recentEventIds(configDir: string, profile: string): string[] {
  return readAll(configDir).get(profile) ?? []
}

/** Puts `ids` (newest first) in front of what the profile had; a failed write only costs Tab its suggestions. */
export async function rememberEventIds(configDir: string, profile: string, ids: readonly string[]): Promise<void> {
  // an id Tab could not offer is not kept either (src/profiles/id-safe.ts)
  const safe = ids.filter((id) => isIdSafe(id))
  if (safe.length === 0) return
  const table = readAll(configDir)
  const before = table.get(profile) ?? []
  const after = [...new Set([...safe, ...before])].slice(0, RECENT_EVENT_IDS)
  // The same listing again leaves the file as it is.
  if (after.length === before.length && after.every((id, i) => id === before[i])) return
  table.set(profile, after)
  const text = `${JSON.stringify(Object.fromEntries(table))}\n`
  // Written whole (a new 0600 file beside it, renamed into place: never through a symbolic link),
  // without fsync, write-file-atomic and the node:crypto it loads (a fifth of `events list me` when
  // the newest ids changed): a write lost to a power cut costs Tab its suggestions, nothing else.
  const path = join(configDir, FILE)
  const partial = `${path}.${process.pid}.tmp`
  try {
    try {
      writeFileSync(partial, text, {flag: 'wx', mode: PRIVATE_FILE_MODE})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      await ensurePrivateFolder(configDir)
      writeFileSync(partial, text, {flag: 'wx', mode: PRIVATE_FILE_MODE})
    }

    renameSync(partial, path)
  } catch {
    rmSync(partial, {force: true})
    // a read-only config folder: the listing itself succeeded
  }
}
