/**
 * Paged listings from the row's `paging` (src/http/paginate.ts): `pagingFlags(row)` gives a
 * command `--all`, `--limit` and the row's token flag (`pagingToken` -> `--paging-token`), and
 * `streamPages` (called through `BaseCommand.streamPages`) writes the pages into the command's
 * view as they arrive, shows progress, notes how to go on, and returns the one JSON document
 * `{count, <items>, paging}`.
 */
import * as Flags from '@oclif/core/flags'

import type {CallOptions, ServiceClient} from '../http/client.js'
import type {InputArgs, ItemOf, Operation, Paging} from '../http/operation.js'

import {paginate, walk} from '../http/paginate.js'
import {progress} from './progress.js'

export type PagedOperation = Operation & {paging: Paging}

type Kebab<S extends string> = S extends `${infer Head}${infer Tail}`
  ? Head extends Lowercase<Head>
    ? `${Head}${Kebab<Tail>}`
    : `-${Lowercase<Head>}${Kebab<Tail>}`
  : S

/** The flag that carries the row's page token: `pagingToken` -> `paging-token`. */
export type TokenFlagOf<O extends PagedOperation> = Kebab<O['paging']['token']>

export function tokenFlagOf<O extends PagedOperation>(row: O): TokenFlagOf<O> {
  return row.paging.token.replaceAll(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) as TokenFlagOf<O>
}

/** `events` -> `event`: the noun of one item, for progress lines. */
const singular = (items: string) => items.replace(/s$/, '')

/**
 * The most items one listing document holds: MAX_LIMIT of ./flags.ts, written out rather than
 * imported, since base-command loads this module on its own (a dynamic import) and an import would
 * give flags.ts a chunk of its own, one more file for every command to load.
 */
const MAX_LIMIT = 10_000

/** `--all`, `--limit` and the token flag of a paged row; the descriptions name its items. */
export function pagingFlags<O extends PagedOperation>(row: O) {
  const {items} = row.paging
  const token = Flags.string({description: 'start from this page (the token a previous listing printed)'})
  return {
    all: Flags.boolean({description: 'follow every page (streams)'}),
    limit: Flags.integer({description: `at most this many ${items}, up to ${MAX_LIMIT} (follows pages as needed; --all for more)`, max: MAX_LIMIT, min: 1}),
    // A computed key widens to string: only its name is narrowed, the flag keeps oclif's own type.
    ...({[tokenFlagOf(row)]: token} as Record<TokenFlagOf<O>, typeof token>),
  }
}

/** The document of a paged listing: `{count, events: [...], paging: {next?}}`. */
export type PagedDocument<O extends PagedOperation> = {count: number; paging: {next?: string}} & Record<O['paging']['items'], ItemOf<O>[]>

export interface StreamOptions<I> {
  /** Sees each item as it is written (e.g. to remember the newest ids). */
  onItem?: (item: I) => void
}

/** What `streamPages` needs of the command: its flags, its list writer, its notes and its name. */
export interface PagingHost<I> {
  /** Command id as typed, for progress: `events list`. */
  commandName: string
  flags: Record<string, unknown>
  listWriter(): Promise<{push(item: I): Promise<void>; endPage(): Promise<void>; end(): Promise<void>; items: I[]}>
  note(message: string): void
  /** The key of the list in the command's view: it must be the row's items. */
  viewList?: string
}

/** The input of a paged row's call, as `streamPages` takes it. */
export type PagingInput<O extends PagedOperation> = InputArgs<O, CallOptions>[0]

export async function streamPages<O extends PagedOperation>(
  host: PagingHost<ItemOf<O>>,
  client: Pick<ServiceClient, 'call'>,
  row: O,
  input: PagingInput<O>,
  options: StreamOptions<ItemOf<O>> = {},
): Promise<PagedDocument<O>> {
  const {items: itemsKey, token: tokenKey} = row.paging
  if (host.viewList !== itemsKey) throw new Error(`${row.id}: the command's view lists "${host.viewList}", the row pages "${itemsKey}"`)
  const tokenFlag = tokenFlagOf(row)
  const all = host.flags.all === true
  const limit = host.flags.limit as number | undefined
  const token = host.flags[tokenFlag] as string | undefined
  const query = {...(input as {query?: Record<string, unknown>} | undefined)?.query, [tokenKey]: token}
  const pages = paginate(client, row as PagedOperation, {...input, query} as never)

  const writer = await host.listWriter()
  const shown = progress()
  let pagesRead = 0
  const keep = (item: ItemOf<O>) => {
    options.onItem?.(item)
    return writer.push(item)
  }

  const read = await walk(pages as AsyncIterable<{items: ItemOf<O>[]; next?: string}>, {all, limit}, keep, async (count) => {
    pagesRead++
    // stdout and stderr share a terminal: rows written after the progress text would continue its line.
    shown.done()
    await writer.endPage()
    if (all || limit) shown.update(`${host.commandName}: ${pagesRead} page(s), ${count} ${singular(itemsKey)}(s) so far`)
  })
  shown.done()
  await writer.end()
  if (read.next) host.note(`More ${itemsKey}: add --${tokenFlag} ${read.next}, or --all for every page`)
  return {count: read.count, [itemsKey]: writer.items, paging: read.next ? {next: read.next} : {}} as PagedDocument<O>
}
