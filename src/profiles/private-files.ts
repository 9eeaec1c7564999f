import type {FileHandle} from 'node:fs/promises'

// fs.promises loads on first use: importing node:fs/promises would cost every command its load (readline, file watchers)
import {closeSync, constants, promises as fs, fstatSync, openSync, readSync} from 'node:fs'

import {sizeText, UsageError} from '../errors.js'

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

/** Why a file could not be opened or written, in words, from its errno code. */
const WRITE_FAILURES: Record<string, string> = {
  EACCES: 'permission denied',
  EDQUOT: 'the disk quota is used up',
  EISDIR: 'it is a folder',
  ELOOP: 'it is a symbolic link, and opsctl appends only to a real file',
  ENOSPC: 'the disk is full',
  ENOTDIR: 'a folder on its path is a file',
  ENXIO: 'it is not a regular file',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
}

/** A file opsctl must write but cannot: one line naming it (exit 2), never "Unexpected error". */
export class UnwritableFileError extends UsageError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`Cannot write ${path}: ${reason}`)
  }
}

/** The error of a failed open or write of `path`: an UnwritableFileError when its errno code says why, else the error itself. */
export function unwritableFile(path: string, error: unknown): Error {
  const reason = WRITE_FAILURES[(error as NodeJS.ErrnoException).code ?? '']
  return reason ? new UnwritableFileError(path, reason) : (error as Error)
}

/**
 * Opens a file of the config folder for appending: created 0600, or tightened to 0600. Never
 * through a symbolic link (O_NOFOLLOW: a link in place of the file could make opsctl append to, and
 * chmod, any file the user can write, or create one wherever a dangling link points), and only a
 * regular file (O_NONBLOCK: a FIFO there fails instead of waiting for a reader). Refusals are
 * UsageErrors naming the file.
 */
export async function openPrivateForAppend(path: string): Promise<FileHandle> {
  const {O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_WRONLY} = constants
  const file = await fs.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, PRIVATE_FILE_MODE).catch((error: unknown) => {
    throw unwritableFile(path, error)
  })
  try {
    const found = await file.stat()
    if (!found.isFile()) throw new UnwritableFileError(path, WRITE_FAILURES.ENXIO)
    if ((found.mode & 0o777) !== PRIVATE_FILE_MODE) await file.chmod(PRIVATE_FILE_MODE)
    return file
  } catch (error) {
    await file.close()
    throw error
  }
}

/**
 * A small file of the config folder (profiles.json, Tab's recent ids) read whole, synchronously,
 * only when it is a regular file of at most `maxBytes`: a FIFO in its place would wait for a writer
 * for ever (O_NONBLOCK: the open returns, and it is refused), a device or a huge file would fill
 * memory. Undefined when there is no file; otherwise an Error whose message says why, in a few words.
 */
export function readConfigText(path: string, maxBytes: number): string | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    const {code, message} = error as NodeJS.ErrnoException
    if (code === 'ENOENT') return undefined
    throw new Error(code ?? message.split('\n')[0])
  }

  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) throw new Error(stats.isDirectory() ? 'EISDIR' : 'not a regular file')
    const tooLarge = () => new Error(`larger than ${sizeText(maxBytes)}`)
    if (stats.size > maxBytes) throw tooLarge()
    // one byte more than the size: a file that grew since is read to its end, within the bound
    const buffer = Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1)
    let read = 0
    for (let n = 1; n > 0 && read < buffer.length; read += n) n = readSync(fd, buffer, read, buffer.length - read, null)
    if (read > maxBytes) throw tooLarge()
    return buffer.toString('utf8', 0, read)
  } finally {
    closeSync(fd)
  }
}
