import {readFile, rm} from 'node:fs/promises'
import {join} from 'node:path'

import {ensurePrivateFolder, PRIVATE_FILE_MODE} from './private-files.js'

/**
 * The control tokens of the sandboxes running on this machine: `sandbox start` writes one file
 * per sandbox (`<config dir>/sandboxes/<port>.json`, 0600, folder 0700) and removes it when it
 * stops, and the CLI reads it, so control commands need no step from the user. The file is keyed
 * by the port: the CLI reaches a local sandbox over loopback, by whichever loopback name its
 * profile uses (localhost, 127.0.0.1, [::1]), and one port has one listener.
 */
export interface SandboxTokenFile {
  origin: string
  pid: number
  token: string
}

export function sandboxTokenPath(configDir: string, port: number | string): string {
  return join(configDir, 'sandboxes', `${port}.json`)
}

/** Written whole under a temporary name and renamed (write-file-atomic, as profiles.json): a reader sees no file or the whole file. */
export async function writeSandboxToken(configDir: string, port: number, entry: SandboxTokenFile): Promise<string> {
  const path = sandboxTokenPath(configDir, port)
  await ensurePrivateFolder(join(configDir, 'sandboxes'))
  const {default: writeFileAtomic} = await import('write-file-atomic')
  await writeFileAtomic(path, JSON.stringify(entry) + '\n', {mode: PRIVATE_FILE_MODE})
  return path
}

/** The token of the sandbox listening on this port, when one wrote it; a missing or unreadable file is no token. */
export async function readSandboxToken(configDir: string, port: number | string): Promise<string | undefined> {
  let text: string
  try {
    text = await readFile(sandboxTokenPath(configDir, port), 'utf8')
  } catch {
    return undefined
  }

  try {
    const entry = JSON.parse(text) as Partial<SandboxTokenFile>
    return typeof entry.token === 'string' && entry.token !== '' ? entry.token : undefined
  } catch {
    return undefined
  }
}

/** Removes the file if it still holds this token (a sandbox started since on the same port keeps its own). */
export async function removeSandboxToken(configDir: string, port: number, token: string): Promise<void> {
  if ((await readSandboxToken(configDir, port)) === token) await rm(sandboxTokenPath(configDir, port), {force: true})
}
