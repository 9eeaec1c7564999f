/**
 * `opsctl api --paginate`: the request's path names a paged row of the service's table (`rowAt`),
 * whose `paging` says which query parameter carries the token and where an answer keeps its items
 * and the next token; `paginate` follows it, one raw GET a page, with the request's own auth,
 * headers and query. Loaded only for --paginate: the table, which the service's module
 * (src/http/services.ts) imports when asked, brings zod.
 */
import type {RawResponse, ServiceClient} from '../http/client.js'
import type {QueryValue} from '../http/url.js'

import {ExitCode, OpsError, sizeText, UsageError} from '../errors.js'
import {type AuthKind, type Operation, type Paging, rowAt} from '../http/operation.js'
import {paginate} from '../http/paginate.js'

type PagedRow = Operation & {paging: Paging}

/**
 * The paged row of the service's table (`rows`, from its module: `serviceModule(service).operations()`)
 * that `GET path` is a call of; anything else is a usage error (nothing sent) naming the paged ones.
 */
export function pagedRow(service: string, rows: readonly Operation[], method: string, path: string): PagedRow {
  const row = method === 'GET' ? rowAt(rows, method, path) : undefined
  if (row?.paging) return row as PagedRow
  const paged = rows.filter((r) => r.paging).map((r) => `GET ${r.path}`)
  const what = row ? `${row.id} (${method} ${row.path}) has no pages` : `${method} ${path.split('?', 1)[0]} is not a paged operation of ${service}`
  throw new UsageError(
    `--paginate follows a paged list, and ${what}; nothing was sent`,
    paged.length > 0 ? [`The paged lists of ${service}: ${paged.join(', ')}`] : [],
  )
}

export interface PagedRequest {
  auth: AuthKind
  headers: Record<string, string>
  /** The path without a query: the query is all in `query`, where the token goes. */
  path: string
  query: Record<string, QueryValue>
}

export interface PagesRead {
  /** Every page's items in order, when collected. */
  items: unknown[]
  /** The last answer read: the end of the list, a failure (`error`), or the page at the cap. */
  last: RawResponse
  /** The next page's token when --max-pages stopped the run before the end. */
  stoppedAt?: string
}

/**
 * Reads the pages from the one the query's token names (the first without one) to the last, at
 * most `maxPages`; each answer goes to `onPage` as it arrives. A failed answer ends the run and is
 * `last` (its `error` set). `collect`: keep the items for one merged document, of at most
 * `maxCollectBytes` (their JSON): past it the run stops (exit 6) and says to use `-o ndjson`,
 * which holds one page at a time.
 */
export async function readPages(
  client: Pick<ServiceClient, 'raw'>,
  row: PagedRow,
  request: PagedRequest,
  options: {collect: boolean; maxCollectBytes: number; maxPages: number; onPage: (response: RawResponse) => Promise<void> | void},
): Promise<PagesRead> {
  const {path, query} = request
  const caller = {
    call: (_op: Operation, input: {query?: Record<string, unknown>}) =>
      client.raw('GET', path, {answerErrors: true, auth: request.auth, headers: request.headers, query: input.query as Record<string, QueryValue>}),
  }
  const items: unknown[] = []
  let collected = 0
  let pages = 0
  let last: RawResponse | undefined
  for await (const page of paginate(caller as unknown as Pick<ServiceClient, 'call'>, row, {query})) {
    last = page.response as RawResponse
    pages++
    await options.onPage(last)
    if (last.error) break
    if (options.collect) {
      collected += Buffer.byteLength(JSON.stringify(page.items))
      if (collected > options.maxCollectBytes) throw tooLargeToCollect(pages, options.maxCollectBytes)
      items.push(...page.items)
    }

    if (pages >= options.maxPages && page.next && page.items.length > 0) return {items, last, stoppedAt: page.next}
  }

  return {items, last: last as RawResponse}
}

function tooLargeToCollect(pages: number, limit: number): OpsError {
  return new OpsError(
    `--paginate stopped at page ${pages}: the one document of every page would pass ${sizeText(limit)} (--max-body); nothing was printed`,
    ExitCode.Server,
    ['Print each page as it arrives, without holding them all, with -o ndjson', 'Or raise the limit with --max-body <MiB> (or OPSCTL_MAX_BODY)'],
  )
}

/** One document of every page: the last answer, its list (`row.paging.items`) holding the items of all pages in order. */
export function mergedPages(row: PagedRow, read: PagesRead): unknown {
  const {data} = read.last
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data
  return {...data, [row.paging.items]: read.items}
}
