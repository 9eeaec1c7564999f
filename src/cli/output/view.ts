/**
 * A view: how a command's one JSON document is shown in tables, CSV and ndjson. The document is
 * what `execute()` returns; `--json`, `-o json` and `--query` see exactly that.
 */
import type {ColumnLayout} from './table.js'

export type {ColumnLayout} from './table.js'
export type Row = Record<string, unknown>

export interface View<D = unknown> {
  /** Key of the document's list (`events` in `{count, events, paging}`); a document that is an array is its own list. */
  list?: string
  /** Rows computed from the document, when its list is not one key (metrics windows by period). */
  rows?(document: D): Row[]
  /** With `list`: show the document's other fields as key/value first, then the list (groups config). */
  withFields?: boolean
  /** Default columns (dot paths) of a table or CSV, or the fields of a record shown as key/value. */
  columns?: readonly string[]
  /** Every other field `--columns` may name (dot paths), e.g. `fieldsOf(schema)`. */
  fields?: readonly string[]
  /** Free-text columns shortened first to fit the terminal (the same as `layout` kind `text`). */
  freeText?: readonly string[]
  /**
   * How each column gives way in a terminal too narrow for the table (./table.ts): ids never cut,
   * free text first, and the priority that decides which columns are left out when it cannot fit.
   */
  layout?: Readonly<Record<string, ColumnLayout>>
  /** IANA zone of times in tables and CSV; without it the command's own (the health user's), else UTC. */
  zone?: string
  /** Prints nothing on stdout unless a document format (--json, -o json/ndjson/csv, --query) is asked for. */
  quiet?: boolean
  /**
   * Fields of a record shown masked (`sk-s…Ui4`) in a table, tab-separated lines and CSV, which land in
   * logs: a key shown this once. `--json`, `-o json/ndjson` and `--query` keep the exact value for scripts.
   */
  masked?: readonly string[]
  /** The tables of a document shown as several (users inspect): CSV, one table, cannot hold them. */
  parts?: readonly string[]
}

/** The tables a view shows, when it shows more than one: CSV refuses those documents. */
export function tablesOf(view: View): readonly string[] | undefined {
  if (view.parts) return view.parts
  return view.withFields && view.list ? ['its fields', view.list] : undefined
}

/** The layout of a view's columns, its `freeText` included. */
export function layoutOf(view: Pick<View, 'freeText' | 'layout'>): Record<string, ColumnLayout> {
  const layout: Record<string, ColumnLayout> = Object.create(null)
  for (const name of view.freeText ?? []) layout[name] = {kind: 'text'}
  for (const [name, column] of Object.entries(view.layout ?? {})) layout[name] = {...layout[name], ...column}
  return layout
}


/** The document's list under this view, or undefined for a single record. */
export function listOf(document: unknown, view: View): Row[] | undefined {
  if (Array.isArray(document)) return document.map(asRow)
  if (view.rows) return view.rows(document)
  if (view.list && document && typeof document === 'object') {
    const list = (document as Row)[view.list]
    if (Array.isArray(list)) return list.map(asRow)
  }

  return undefined
}

function asRow(value: unknown): Row {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Row) : {value}
}

/** Columns `--columns` may name under this view; empty when the view does not know its shape. */
export function knownColumns(view: View): string[] {
  return [...new Set([...(view.columns ?? []), ...(view.fields ?? [])])]
}

export function unknownColumns(wanted: readonly string[], known: readonly string[]): string[] {
  const set = new Set(known)
  return wanted.filter((c) => !set.has(c))
}

interface SchemaLike {
  def?: {type?: string; innerType?: SchemaLike; shape?: Record<string, SchemaLike>; element?: SchemaLike}
  shape?: Record<string, SchemaLike>
}

/** The dot paths of a zod object schema (objects inside objects included), without importing zod. */
export function fieldsOf(schema: unknown, prefix = '', depth = 0): string[] {
  const object = unwrap(schema as SchemaLike)
  const shape = object?.def?.shape ?? object?.shape
  if (!shape || depth > 3) return []
  const paths: string[] = []
  for (const [key, value] of Object.entries(shape)) {
    const path = prefix + key
    paths.push(path, ...fieldsOf(value, path + '.', depth + 1))
  }

  return paths
}

function unwrap(schema: SchemaLike | undefined): SchemaLike | undefined {
  let s = schema
  for (let i = 0; i < 5 && s?.def?.innerType; i++) s = s.def.innerType
  return s
}
