/** A module's state: its repositories, plus what export, import and reset need. */
export interface ModuleState {
  /** The whole state as JSON values, keyed tables as [key, value] pairs (core/state-document.ts). */
  dump(): Promise<Record<string, unknown>>
  /** Replaces the state with a document's section; tables the section lacks start empty. Throws StateDocumentError. */
  load(section: Record<string, unknown>, version: number): Promise<void>
  /** Back to the state of a fresh sandbox. */
  reset(): Promise<void>
}
