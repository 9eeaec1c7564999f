import {chmod, type FileHandle, mkdir, open, stat} from 'node:fs/promises'

/**
 * The config folder holds credentials (profiles.json) and the audit log: the folder is 0700 and
 * every file in it 0600, whatever the umask and whatever an older opsctl (or a user) left there.
 * Modes given at creation are reduced by the umask and ignored for existing files, so a writer
 * also tightens what it finds.
 */
export const PRIVATE_FOLDER_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/** Creates the folder (and any missing parent) 0700, or tightens an existing one to 0700. */
export async function ensurePrivateFolder(dir: string): Promise<void> {
  await mkdir(dir, {mode: PRIVATE_FOLDER_MODE, recursive: true})
  const {mode} = await stat(dir)
  if ((mode & 0o777) !== PRIVATE_FOLDER_MODE) await chmod(dir, PRIVATE_FOLDER_MODE)
}

/** Opens a file of the config folder for appending: created 0600, or tightened to 0600. */
export async function openPrivateForAppend(path: string): Promise<FileHandle> {
  const file = await open(path, 'a', PRIVATE_FILE_MODE)
  try {
    const {mode} = await file.stat()
    if ((mode & 0o777) !== PRIVATE_FILE_MODE) await file.chmod(PRIVATE_FILE_MODE)
    return file
  } catch (error) {
    await file.close()
    throw error
  }
}
