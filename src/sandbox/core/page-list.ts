/**
 * Paging a list a handler holds in memory (a document's array, a collection's values): one page of
 * it in the list's order, and the token of the page after it, made by the row's `pageCursor` (so a
 * token that is not one this sandbox wrote is the row's 400, `INVALID_PAGING_TOKEN`).
 */
import * as z from 'zod'

import type {Operation, Paging} from '../../http/operation.js'

import {pageCursor} from './page-cursor.js'

/** Where the last page ended: its position in the list and its last item's key. */
const ListCursor = z.tuple([z.number().int().min(0), z.string()])

export interface ListPage<T> {
  items: T[]
  /** the token of the page after this one; undefined on the last page */
  next?: string
}

/**
 * The pager of a row over lists of `T`, `size` items a page. A page starts after the item the
 * token names (`keyOf`: unique in the list), so items added or removed before it move no item
 * onto two pages; when that item is gone since, at the position it was at.
 */
export function listPager<T>(row: Operation & {paging: Paging}, options: {size: number; keyOf(item: T): string}): (items: readonly T[], token: string | undefined) => ListPage<T> {
  const tokens = pageCursor(row, ListCursor)
  return (items, token) => {
    let start = 0
    if (token !== undefined) {
      const [position, key] = tokens.decode(token)
      const after = items.findIndex((item) => options.keyOf(item) === key)
      start = after === -1 ? Math.min(position, items.length) : after + 1
    }

    const page = items.slice(start, start + options.size)
    const end = start + page.length
    return end < items.length && page.length > 0 ? {items: page, next: tokens.encode([end, options.keyOf(page.at(-1)!)])} : {items: page}
  }
}
