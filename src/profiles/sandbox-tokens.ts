// fs.promises loads on first use: importing node:fs/promises would cost every command its load (readline, file watchers)
import {promises as fs} from 'node:fs'
import {join} from 'node:path'

import {ensurePrivateFolder, PRIVATE_FILE_MODE, privateFolderProblem, readConfigText} from './private-files.js'

/**
 * The control tokens of the sandboxes running on this machine: `sandbox start` writes one file
 * per sandbox (`<config dir>/sandboxes/<scheme>-<host>-<port>.json`, 0600, folder 0700) and
 * removes it when it stops, and the CLI reads it, so control commands need no step from the user.
 * The file is keyed by the origin as the sandbox bound it, and its token goes to that exact origin
 * only: another process may hold the same port on another loopback address (127.0.0.2:P beside
 * 127.0.0.1:P). A sandbox bound to every address (0.0.0.0, ::) holds its port on all of them, so
 * its token goes to any loopback name with that port.
 */
export interface SandboxTokenFile {
  origin: string
  pid: number
  token: string
}

const ALL_ADDRESSES = ['0.0.0.0', '[::]']
/** A token file is a line of JSON: anything larger is not one a sandbox wrote. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024

export function sandboxTokenPath(configDir: string, origin: string): string {
  const url = new URL(origin)
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  return join(configDir, 'sandboxes', `${url.protocol.replace(':', '')}-${host}-${url.port}.json`)
}

/** Written whole under a temporary name and renamed (write-file-atomic, as profiles.json): a reader sees no file or the whole file. */
export async function writeSandboxToken(configDir: string, entry: SandboxTokenFile): Promise<string> {
  const path = sandboxTokenPath(configDir, entry.origin)
  await ensurePrivateFolder(join(configDir, 'sandboxes'), {linked: 'refuse'})
  const {default: writeFileAtomic} = await import('write-file-atomic')
  await writeFileAtomic(path, JSON.stringify(entry) + '\n', {mode: PRIVATE_FILE_MODE})
  return path
}

/** The token of the sandbox that bound this origin (or every address on its port), when one wrote it; a missing or unreadable file is no token. */
export async function readSandboxToken(configDir: string, origin: string): Promise<string | undefined> {
  // a linked or foreign folder holds no token of ours (writeSandboxToken refuses it)
  if (await privateFolderProblem(join(configDir, 'sandboxes'), {linked: 'refuse'}).catch(() => 'unreadable')) return undefined
  const url = new URL(origin)
  const bound = [url.origin, ...ALL_ADDRESSES.map((host) => `${url.protocol}//${host}:${url.port}`)]
  for (const candidate of bound) {
     
    const token = await tokenOf(configDir, candidate)
    if (token) return token
  }

  return undefined
}

async function tokenOf(configDir: string, origin: string): Promise<string | undefined> {
  let text: string | undefined
  try {
    // only a regular file, a small one: a FIFO there would wait for a writer for ever
    text = readConfigText(sandboxTokenPath(configDir, origin), MAX_TOKEN_FILE_BYTES)
  } catch {
    return undefined
  }

  if (text === undefined) return undefined

  try {
    const entry = JSON.parse(text) as Partial<SandboxTokenFile>
    // the file says whose it is: a file copied or renamed to another origin's name gives nothing
    if (typeof entry.origin !== 'string' || new URL(entry.origin).origin !== new URL(origin).origin) return undefined
    return typeof entry.token === 'string' && entry.token !== '' ? entry.token : undefined
  } catch {
    return undefined
  }
}

/** Removes the file if it still holds this token (a sandbox started since on the same origin keeps its own). */
export async function removeSandboxToken(configDir: string, origin: string, token: string): Promise<void> {
  if ((await tokenOf(configDir, origin)) === token) await fs.rm(sandboxTokenPath(configDir, origin), {force: true})
}
