/**
 * A running sandbox's whole state in and out of a JSON file (`sandbox export` / `sandbox import`),
 * through the control route `/__sandbox/state`: fixtures a team checks into a repository.
 */
import {writeFile} from 'node:fs/promises'

import type {Transport} from '../http/transport.js'

import {ApiError, UsageError} from '../errors.js'
import {nestsDeeperThan, SANDBOX_STATE_LIMIT_BYTES, SANDBOX_STATE_MAX_DEPTH} from '../services/sandbox-defaults.js'
import {readBounded} from './bounded-read.js'
import {sandboxControl, type SandboxControlTarget} from './sandbox-control.js'

/** What a state holds, for the summary a command prints. */
export interface StateSummary {
  users: number
  events: number
  checkouts: number
  webhooks: number
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const sizeOf = (table: unknown) => (Array.isArray(table) ? table.length : isRecord(table) ? Object.keys(table).length : 0)

export function summarize(document: unknown): StateSummary {
  const health = isRecord(document) && isRecord(document.health) ? document.health : {}
  const checkout = isRecord(document) && isRecord(document.checkout) ? document.checkout : {}
  const perUser = Array.isArray(health.events) ? (health.events as unknown[]).map((p) => (Array.isArray(p) ? p[1] : [])) : []
  return {
    users: sizeOf(health.users),
    events: perUser.reduce<number>((n, list) => n + sizeOf(list), 0),
    checkouts: sizeOf(checkout.checkouts),
    webhooks: sizeOf(checkout.webhooks),
  }
}

/** Writes the sandbox's state to `file` (mode 0600: it holds password hashes). Under a dry run, writes nothing. */
export async function exportState(transport: Transport, sandbox: SandboxControlTarget, file: string, dryRun: boolean): Promise<StateSummary | undefined> {
  const document = await sandboxControl(transport, sandbox, 'GET', 'state')
  if (dryRun) return undefined
  await writeFile(file, JSON.stringify(document, null, 1) + '\n', {mode: 0o600})
  return summarize(document)
}

/** A state file as read: its bytes, sent as they are, and the parsed document, for the checks and the summary. */
export interface StateFile {
  bytes: Buffer
  document: unknown
}

/**
 * Reads and checks a state file before anything is sent: a file that cannot be read, is larger
 * than the sandbox takes (counted as it is read: a FIFO or /dev/zero has no size to look at), is
 * not text, is no JSON, nests deeper than any state does, or is no state document is bad input.
 */
export async function readStateFile(file: string): Promise<StateFile> {
  const bytes = await readBounded(file, {limit: SANDBOX_STATE_LIMIT_BYTES, text: true})
  let document: unknown
  try {
    document = JSON.parse(bytes.toString('utf8'))
  } catch (error) {
    throw new UsageError(`${file} is not JSON (${(error as Error).message})`)
  }

  if (nestsDeeperThan(document, SANDBOX_STATE_MAX_DEPTH)) {
    throw new UsageError(`${file} is nested deeper than ${SANDBOX_STATE_MAX_DEPTH} levels: it is not a sandbox state`)
  }

  if (!isRecord(document) || typeof document.version !== 'number') {
    throw new UsageError(`${file} is not a sandbox state: it has no version`)
  }

  return {bytes, document}
}

/**
 * Replaces the sandbox's whole state with the file's (the sandbox checks every record before it
 * changes anything). A document the sandbox refuses (400: a record of the wrong shape, named by
 * its path; 413: too large) is bad input, like the checks above: the state is left as it was.
 */
export async function importState(
  transport: Transport,
  sandbox: SandboxControlTarget,
  file: string,
  state: StateFile,
  options: {keepSessions?: boolean} = {},
): Promise<StateSummary> {
  try {
    await sandboxControl(transport, sandbox, 'PUT', options.keepSessions ? 'state?keepSessions=true' : 'state', undefined, state.bytes)
  } catch (error) {
    if (error instanceof ApiError && (error.status === 400 || error.status === 413)) {
      throw new UsageError(`${file}: ${error.serverMessage}; the sandbox's state is unchanged`)
    }

    throw error
  }

  return summarize(state.document)
}
