/**
 * A running sandbox's whole state in and out of a JSON file (`sandbox export` / `sandbox import`),
 * through the control route `/__sandbox/state`: fixtures a team checks into a repository.
 */
import {readFile, writeFile} from 'node:fs/promises'

import type {Transport} from '../http/transport.js'

import {UsageError} from '../errors.js'
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

/** Reads and checks a state file before anything is sent: a file that cannot be read or is no state document is bad input. */
export async function readStateFile(file: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }

  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${file} is not JSON (${(error as Error).message})`)
  }

  if (!isRecord(document) || typeof document.version !== 'number') {
    throw new UsageError(`${file} is not a sandbox state: it has no version`)
  }

  return document
}

/** Replaces the sandbox's whole state with the document (the sandbox checks it all before changing anything). */
export async function importState(transport: Transport, sandbox: SandboxControlTarget, document: unknown): Promise<StateSummary> {
  await sandboxControl(transport, sandbox, 'PUT', 'state', document)
  return summarize(document)
}
