import type {FileHandle} from 'node:fs/promises'

// fs.promises loads on first use: importing node:fs/promises would cost every command its load (readline, file watchers)
import {promises as fs} from 'node:fs'

import {UsageError} from '../errors.js'

/**
 * The config folder holds credentials (profiles.json) and the audit log: the folder is 0700 and
 * every file in it 0600, whatever the umask and whatever an older opsctl (or a user) left there.
 * Modes given at creation are reduced by the umask and ignored for existing files, so a writer
 * also tightens what it finds, but only a real folder of the user's own: a folder owned by
 * another user is refused, and `linked: 'refuse'` refuses a symbolic link too (`sandboxes/`:
 * following one would chmod its target and write the control token wherever it points).
 */
export const PRIVATE_FOLDER_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

export interface FolderRules {
  /** 'refuse': a symbolic link in place of the folder is an error; 'follow' (the config folder itself may be a link a user made) */
  linked: 'follow' | 'refuse'
}

/** Creates the folder (and any missing parent) 0700, or tightens an existing one of the user's to 0700. */
export async function ensurePrivateFolder(dir: string, rules: FolderRules = {linked: 'follow'}): Promise<void> {
  await fs.mkdir(dir, {mode: PRIVATE_FOLDER_MODE, recursive: true})
  const problem = await privateFolderProblem(dir, rules)
  if (problem) throw new UsageError(`${problem}; set OPSCTL_CONFIG_DIR to a folder of your own`)
  const {mode} = await fs.stat(dir)
  if ((mode & 0o777) !== PRIVATE_FOLDER_MODE) await fs.chmod(dir, PRIVATE_FOLDER_MODE)
}

/** Why opsctl must not keep secrets in this existing folder, or undefined. */
export async function privateFolderProblem(dir: string, rules: FolderRules): Promise<string | undefined> {
  const found = rules.linked === 'refuse' ? await fs.lstat(dir) : await fs.stat(dir)
  if (found.isSymbolicLink()) return `${dir} is a symbolic link; opsctl keeps its private files only in a real folder`
  if (!found.isDirectory()) return `${dir} is not a folder`
  const uid = process.getuid?.()
  if (uid !== undefined && found.uid !== uid) return `${dir} is owned by another user (uid ${found.uid}), who could read what opsctl writes there`
  return undefined
}

/** Opens a file of the config folder for appending: created 0600, or tightened to 0600. */
export async function openPrivateForAppend(path: string): Promise<FileHandle> {
  const file = await fs.open(path, 'a', PRIVATE_FILE_MODE)
  try {
    const {mode} = await file.stat()
    if ((mode & 0o777) !== PRIVATE_FILE_MODE) await file.chmod(PRIVATE_FILE_MODE)
    return file
  } catch (error) {
    await file.close()
    throw error
  }
}
