/**
 * Paged lists, driven by the row's `paging`: which query parameter asks for a page, where the
 * answer keeps its items and the next page's token. One page is asked for at a time, when the
 * consumer wants it, so memory holds one page whatever the total.
 */
import type {ApiResponse, CallInput, CallOptions, RawResponse, ServiceClient} from './client.js'
import type {InputArgs, ItemOf, Operation, Paging, ResultOf} from './operation.js'

import {ExitCode, OpsError} from '../errors.js'
import {arrivedAs, UnreadableAnswerError} from './answer.js'

export interface Page<O extends Operation> {
  items: ItemOf<O>[]
  /** The token this page was asked with (absent for the first page of a listing). */
  token?: string
  /** The next page's token; absent on the last page. */
  next?: string
  response: ApiResponse<ResultOf<O>>
}

type Caller = Pick<ServiceClient, 'call'>
type LooseCall = (op: Operation, input: CallInput) => Promise<ApiResponse<unknown>>

/**
 * Follows a paged operation from the page the input's query names (its token parameter) to the
 * last one: a page without a next token or without items ends it. Stop early with `break`. A next
 * token that was already asked with would read the same pages forever: that is a server error (exit 6).
 * A page whose items are not a list is an answer that cannot be read (exit 6), never an empty
 * page; an answer that carries its own error (a raw call with `answerErrors`) is yielded with no
 * items and ends the walk, for the consumer to report.
 * @yields each page, asked for only when the consumer wants it
 */
export async function* paginate<O extends Operation & {paging: Paging}>(
  client: Caller,
  op: O,
  ...args: InputArgs<O, CallOptions>
): AsyncGenerator<Page<O>, void, undefined> {
  const input: CallInput = args[0] ?? {}
  const {items, next, token: tokenKey} = op.paging
  const call = client.call.bind(client) as LooseCall
  let token = stringOrUndefined(input.query?.[tokenKey])
  const asked = new Set<string | undefined>()
  for (;;) {
    asked.add(token)
    const response = await call(op, {...input, query: {...input.query, [tokenKey]: token}})
    if ((response as RawResponse).error) {
      yield {items: [], token, response: response as ApiResponse<ResultOf<O>>}
      return
    }

    const list = valueAt(response.data, items)
    if (!Array.isArray(list)) {
      throw new UnreadableAnswerError(op.id, response.status, `no list of ${items} (found ${kindOf(list)})`, false, arrivedAs(response))
    }

    const page = list as ItemOf<O>[]
    const nextToken = stringOrUndefined(valueAt(response.data, next)) || undefined
    yield {items: page, token, next: nextToken, response: response as ApiResponse<ResultOf<O>>}
    if (!nextToken || page.length === 0) return
    if (asked.has(nextToken)) {
      throw new OpsError(`The ${op.id} answer gave the paging token ${nextToken} again, after ${asked.size} pages; stopped rather than read the same pages forever`, ExitCode.Server)
    }

    token = nextToken
  }
}

export interface WalkOptions {
  /** Follow every page to the end. */
  all?: boolean
  /** Stop after this many items, following pages as needed. */
  limit?: number
}

export interface WalkResult {
  count: number
  /** The token to resume from, when the walk stopped at a page boundary before the end. */
  next?: string
}

/**
 * Hands each item to `onItem` before the next page is asked for. Without `all` or `limit`: one
 * page. Stopped inside a page, there is no token to resume from without repeating items, so
 * `next` is left out.
 */
export async function walk<I>(
  pages: AsyncIterable<{items: I[]; next?: string}>,
  options: WalkOptions,
  onItem: (item: I) => Promise<void> | void,
  /** After each page's items, with the count so far (a table writes a page at a time, progress is shown). */
  onPage?: (count: number) => Promise<void> | void,
): Promise<WalkResult> {
  let count = 0
  for await (const page of pages) {
    const room = options.limit === undefined ? page.items.length : Math.max(0, options.limit - count)
    for (const item of page.items.slice(0, room)) {
      await onItem(item)
      count++
    }

    await onPage?.(count)

    if (room < page.items.length) return {count}
    const wantMore = options.all || (options.limit !== undefined && count < options.limit)
    if (!wantMore) return {count, next: page.items.length > 0 ? page.next : undefined}
  }

  return {count}
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'none'
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** The value at a dotted path (`paging.next`) of an answer. */
function valueAt(data: unknown, path: string): unknown {
  let value = data
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[key]
  }

  return value
}
