/**
 * A command's output, as one small object the command reaches through `this.output`: the format
 * and view of this run, what was already shown (a list streamed as it arrived, a view of the
 * command's own), the closing line, and printing the document `execute()` returned (after `--query`,
 * in the format asked for: ../output.ts). --json and -o json print the same thing. Chatter goes to
 * stderr through `note`, silent under --json.
 */
import type {GlobalFlagValues} from '../flags.js'
import type {PagingHost} from '../paging.js'

import {escapeControlChars} from '../../control-chars.js'
import {UsageError} from '../../errors.js'
import {scrubSecrets} from '../../http/redact.js'
import {writeNote} from '../error-output.js'
import {hints} from '../hints.js'
import {type Format, ListWriter, type OutputMode, renderDocument} from '../output.js'
import {knownColumns, type Row, tablesOf, unknownColumns, type View} from './view.js'

/** What the output reads of its command, each time it asks: a command may override its view and zone. */
export interface OutputSource {
  defaultFormat: Format
  displayZone(): Promise<string | undefined>
  globals(): GlobalFlagValues
  id?: string
  jsonEnabled(): boolean
  view(): View
}

export interface ListSink<I> {
  end(): Promise<void>
  endPage(): Promise<void>
  items: I[]
  push(item: I): Promise<void>
}

export class CommandOutput {
  /** The document was printed (or the command showed its own view): oclif must not print it again under --json. */
  printed = false
  private closingLine?: string
  /** The command printed its own view (a chart, a test report): the document is not printed again. */
  private shownOwnView = false
  /** The document's list was already written as it arrived (`listWriter`). */
  private streamed = false

  constructor(private readonly source: OutputSource) {}

  /**
   * True when the whole document is printed as JSON (--json, -o json, ndjson, --query): a command
   * with a view of its own (a chart, a test report) prints that only when this is false, then calls `markShown`.
   */
  get documentWanted(): boolean {
    return this.format === 'json' || this.format === 'ndjson' || this.source.globals().query !== undefined
  }

  get format(): Format {
    if (this.source.jsonEnabled()) return 'json'
    return this.source.globals().output ?? this.source.defaultFormat
  }

  /** Conflicting formats and unknown columns are refused while reading argv: exit 2, nothing sent. */
  checkFlags(): void {
    const {columns, output, query} = this.source.globals()
    if (this.source.jsonEnabled() && output !== undefined && output !== 'json') {
      throw new UsageError(`--json and --output ${output} ask for two formats; use one of them`, [hints.help(this.source.id)])
    }

    const view = this.source.view()
    const tables = tablesOf(view)
    if (output === 'csv' && query === undefined && tables) {
      const lists = tables.filter((t) => t !== 'its fields')
      throw new UsageError(`-o csv holds one table, and this document has ${tables.length} (${tables.join(', ')})`, [
        `Pick one with --query ${lists.length === 1 ? lists[0] : `NAME (${lists.join(', ')})`} -o csv, or take the whole document with --json`,
      ])
    }

    if (!columns || columns.length === 0 || query !== undefined) return
    const known = knownColumns(view)
    if (known.length === 0) return
    const unknown = unknownColumns(columns, known)
    if (unknown.length > 0) throw unknownColumnsError(unknown, known)
  }

  /** `line` goes to stderr after the document, whatever its format: the last thing a person reads. */
  closeWith(line: string): void {
    this.closingLine = line
  }

  /**
   * For a listing that arrives in pages (`events list --all`): in table, CSV and ndjson form each
   * item is written as it arrives and nothing is kept (`items` stays empty); for JSON and --query
   * the items are collected into `items`, for the document `execute()` returns.
   */
  async listWriter<I extends object>(): Promise<ListSink<I>> {
    const items: I[] = []
    if (this.format === 'json' || this.source.globals().query !== undefined) {
      return {
        async end() {},
        async endPage() {},
        items,
        async push(item) {
          items.push(item)
        },
      }
    }

    this.streamed = true
    const writer = new ListWriter(await this.mode(), this.source.view())
    return {end: () => writer.end(), endPage: () => writer.endPage(), items, push: (item) => writer.push(item as Row)}
  }

  /** What a paged listing (../paging.ts) needs of the command: its name, flags, list writer and notes. */
  pagingHost<I extends object>(id: string | undefined, flags: Record<string, unknown>): PagingHost<I> {
    return {commandName: (id ?? '').replaceAll(':', ' '), flags, listWriter: () => this.listWriter<I>(), note: (m) => this.note(m), viewList: this.source.view().list}
  }

  /** The command wrote its own view on stdout; the document is not printed again. */
  markShown(): void {
    this.shownOwnView = true
  }

  /** Chatter for people, on stderr; silent under --json. It may quote a service (a redirect URL, an email): control characters escaped. */
  note(message: string): void {
    if (!this.source.jsonEnabled()) writeNote(escapeControlChars(message, {keepNewlines: true}))
  }

  /**
   * The document `execute()` returned, unless it was streamed or shown already; then the closing line.
   * `query: false`: an error answer's body (`api`), printed as itself: --query asks about the answer,
   * and run on an error body it would put a type error or a "did you mean" in place of the error.
   */
  async print(document: unknown, options: {query?: boolean} = {}): Promise<void> {
    if (document !== undefined && !this.streamed && !this.shownOwnView) await this.printDocument(document, options.query !== false)
    // A summary is a note: broken between words at the terminal's width, one line in a pipe.
    if (this.closingLine !== undefined) writeNote(this.closingLine)
    this.printed = true
  }

  /** For a command with a view of its own made of several parts (users inspect): one part, in the output mode asked for. */
  async renderPart(part: unknown, view: View): Promise<void> {
    await renderDocument(part, view, await this.mode())
  }

  private async mode(): Promise<OutputMode> {
    const {columns, headers, truncate, utc} = this.source.globals()
    return {
      columns: columns && columns.length > 0 ? columns : undefined,
      format: this.format,
      terminal: process.stdout.isTTY === true,
      truncate: truncate !== false,
      headers: headers !== false,
      width: process.stdout.columns || 80,
      zone: utc ? undefined : (this.source.view().zone ?? (await this.source.displayZone())),
    }
  }

  private async printDocument(document: unknown, withQuery: boolean): Promise<void> {
    const {columns, query} = this.source.globals()
    const view = this.source.view()
    if (view.quiet && !this.documentWanted) return
    if (query === undefined || !withQuery) {
      await renderDocument(document, view, await this.mode())
      return
    }

    const {applyQuery, emptyResultWarning} = await import('./query.js')
    const queried = await applyQuery(document, query)
    const warning = emptyResultWarning(document, query, queried)
    if (warning) writeNote(escapeControlChars(warning))
    const mode = await this.mode()
    checkColumnsAgainst(queried, columns)
    await renderDocument(queried, {}, mode)
  }
}

/** After --query the document has a new shape: its columns are those of its rows. */
function checkColumnsAgainst(document: unknown, columns: string[] | undefined): void {
  if (!columns || columns.length === 0) return
  const rows = Array.isArray(document) ? document : document && typeof document === 'object' ? [document] : []
  const known = [...new Set(rows.slice(0, 50).flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : [])))]
  const unknown = unknownColumns(
    columns.map((c) => c.split('.')[0]),
    known,
  )
  if (rows.length > 0 && unknown.length > 0) throw unknownColumnsError(unknown, known)
}

function unknownColumnsError(unknown: string[], known: string[]): UsageError {
  const names = unknown.map((c) => `"${c}"`).join(', ')
  return new UsageError(`--columns: unknown ${unknown.length === 1 ? 'column' : 'columns'} ${names}; available: ${known.join(', ')}`)
}

/** A file the user asked for (a JUnit report), scrubbed of secrets like stdout. */
export async function writeOutputFile(path: string, text: string): Promise<void> {
  const {writeFile} = await import('node:fs/promises')
  await writeFile(path, scrubSecrets(text))
}
