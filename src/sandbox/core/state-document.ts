/**
 * The whole sandbox state as one JSON document: what `sandbox export` writes and `sandbox import`
 * reads, and the format of the `--state` file before the state moved into SQLite (read once, to
 * import it). `{"version": 2, "<service>": {"<table>": [[key, value], ...], ...}}`: a keyed table
 * is an array of [key, value] pairs. Version 1 (older sandboxes) kept those tables as objects.
 */
import type * as z from 'zod'

import {nestsDeeperThan, SANDBOX_STATE_MAX_DEPTH} from '../../services/sandbox-defaults.js'

export const DOCUMENT_VERSION = 2


export class StateDocumentError extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export interface StateDocument {
  version: number
  /** each module's section; a section the document lacks is absent */
  sections: Map<string, Record<string, unknown>>
}

/** Checks the version, the nesting depth and the shape of the top level; each module checks every record of its own section as it loads it. */
export function readStateDocument(value: unknown, services: readonly string[]): StateDocument {
  if (nestsDeeperThan(value, SANDBOX_STATE_MAX_DEPTH)) throw new StateDocumentError(`it is nested deeper than ${SANDBOX_STATE_MAX_DEPTH} levels`)
  const version = isRecord(value) ? value.version : undefined
  if (!isRecord(value) || typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new StateDocumentError('it has no version: it was not written by an opsctl sandbox')
  }

  if (version > DOCUMENT_VERSION) {
    throw new StateDocumentError(`it is version ${version}, written by a newer opsctl; this one reads versions 1 to ${DOCUMENT_VERSION}`)
  }

  const sections = new Map<string, Record<string, unknown>>()
  for (const service of services) {
    const section = value[service]
    if (section === undefined) continue
    if (!isRecord(section)) throw new StateDocumentError(`its "${service}" is not an object`)
    sections.set(service, section)
  }

  return {version, sections}
}

/** One record of a keyed table, with where it is in the document (`checkout.webhooks[3]`), for errors. */
export interface TableEntry {
  key: string
  value: unknown
  where: string
}

/** A keyed table of a document: [key, value] pairs (version 2) or an object (version 1). */
export function tableOf(saved: unknown, version: number, where: string): TableEntry[] {
  if (version === 1 && isRecord(saved)) return Object.entries(saved).map(([key, value]) => ({key, value, where: `${where}[${JSON.stringify(key)}]`}))
  if (version >= 2 && Array.isArray(saved)) {
    return saved.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new StateDocumentError(`${where}[${i}]: expected a [key, value] pair`)
      if (typeof pair[0] !== 'string') throw new StateDocumentError(`${where}[${i}][0]: expected a string key`)
      return {key: pair[0], value: pair[1] as unknown, where: `${where}[${i}]`}
    })
  }

  throw new StateDocumentError(`its ${where} is not a table as version ${version} writes it`)
}

/**
 * Checks one record against the schema the sandbox holds such records to, and returns it as the
 * schema gives it (defaults filled: a plan without medications gets an empty list, as the handlers
 * expect); throws a StateDocumentError naming the first bad field by its path
 * (`checkout.webhooks[3].id: expected string`).
 */
export function checkRecord(schema: z.ZodType, value: unknown, where: string): unknown {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const [issue] = result.error.issues
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')
  throw new StateDocumentError(`${where}${path}: ${issue.message.replace(/^Invalid input: /, '')}`)
}

/** A record of a table must be stored under its own id: the sandbox finds records by id. */
export function checkKeyIsId(entry: TableEntry): void {
  const id = (entry.value as {id?: unknown}).id
  if (id !== entry.key) throw new StateDocumentError(`${entry.where}: the key ${JSON.stringify(entry.key)} is not the record's id`)
}

/** Parses JSON text of a state document; `__proto__` keys are dropped, so no document reaches a prototype. */
export function parseStateText(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value))
}
