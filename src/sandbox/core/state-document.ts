/**
 * The whole sandbox state as one JSON document: what `sandbox export` writes and `sandbox import`
 * reads, and the format of the `--state` file before the state moved into SQLite (read once, to
 * import it). `{"version": 2, "<service>": {"<table>": [[key, value], ...], ...}}`: a keyed table
 * is an array of [key, value] pairs. Version 1 (older sandboxes) kept those tables as objects.
 */
export const DOCUMENT_VERSION = 2

export class StateDocumentError extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export interface StateDocument {
  version: number
  /** each module's section; a section the document lacks is absent */
  sections: Map<string, Record<string, unknown>>
}

/** Checks the version and the shape of the top level; each module checks its own section as it loads it. */
export function readStateDocument(value: unknown, services: readonly string[]): StateDocument {
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

/** A keyed table of a document: [key, value] pairs (version 2) or an object (version 1). */
export function tableOf(saved: unknown, version: number, where: string): Map<string, unknown> {
  if (version === 1 && isRecord(saved)) return new Map(Object.entries(saved))
  const pairs = Array.isArray(saved) && saved.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string')
  if (version >= 2 && pairs) return new Map(saved as [string, unknown][])
  throw new StateDocumentError(`its ${where} is not a table as version ${version} writes it`)
}

/** Parses JSON text of a state document; `__proto__` keys are dropped, so no document reaches a prototype. */
export function parseStateText(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value))
}
