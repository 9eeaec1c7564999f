import {lstatSync, mkdirSync, type Stats} from 'node:fs'

/**
 * Whether a folder of the compile cache can be trusted with code the process runs: only the
 * current user may have put anything in it. Anyone else who can write in a folder can plant code
 * there, swap a file for a FIFO, a device or a symlink, or point the folder elsewhere; so the folder
 * must be a real directory (never followed through a symlink), owned by the current user and
 * writable by no group or other user. Where ownership cannot be checked (Windows has no uids),
 * nothing is trusted.
 */
export type FolderState = 'missing' | 'private' | 'untrusted'

/** Owned by the current user and writable by no one else. */
export function isPrivate(stats: Stats): boolean {
  return process.getuid !== undefined && stats.uid === process.getuid() && (stats.mode & 0o022) === 0
}

export function folderState(path: string): FolderState {
  let stats: Stats
  try {
    stats = lstatSync(path)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'untrusted'
  }

  return stats.isDirectory() && isPrivate(stats) ? 'private' : 'untrusted'
}

/**
 * Creates the folder (mode 0700, its missing parents too when `parents`) unless it exists, then
 * says whether it is private. Returns whether it was created, or undefined when it cannot be used.
 */
export function makePrivateFolder(path: string, parents = false): {created: boolean} | undefined {
  let created: boolean
  try {
    // Without `parents`, mkdirSync returns nothing and throws EEXIST; with it, the first folder it made.
    const first = mkdirSync(path, {mode: 0o700, recursive: parents})
    created = !parents || first !== undefined
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined
    created = false
  }

  return folderState(path) === 'private' ? {created} : undefined
}
