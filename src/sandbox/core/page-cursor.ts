/**
 * Page tokens for every paged handler: opaque to clients (base64url of a small JSON value the
 * handler chooses, e.g. the last item's sort keys), and checked on the way back in. A token that
 * is not one this sandbox could have issued (garbage, edited, truncated, oversized) is the same
 * 400 whatever the handler, naming the row's token parameter. The value is checked against its
 * schema, never trusted: a handler only ever sees a cursor of the shape it wrote.
 */
import type * as z from 'zod'

import type {Operation, Paging} from '../../http/operation.js'

import {SandboxError} from './sandbox-error.js'

/** Far above any token this sandbox writes (an id and a time): a longer one is refused before decoding. */
const MAX_TOKEN_LENGTH = 1024
const BASE64URL = /^[\w-]*$/

export interface PageCursor<T> {
  encode(cursor: T): string
  /** The cursor a token carries; a 400 when it is not one `encode` could have written. */
  decode(token: string): T
}

export function pageCursor<S extends z.ZodType>(row: Operation & {paging: Paging}, shape: S): PageCursor<z.output<S>> {
  const refuse = () =>
    new SandboxError(400, 'INVALID_PAGING_TOKEN', 'The paging token is not one this service issued', [
      {field: row.paging.token, description: 'invalid'},
    ])
  return {
    decode(token) {
      if (token.length > MAX_TOKEN_LENGTH || !BASE64URL.test(token)) throw refuse()
      let value: unknown
      try {
        value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
      } catch {
        throw refuse()
      }

      const parsed = shape.safeParse(value)
      if (!parsed.success) throw refuse()
      return parsed.data
    },
    encode: (cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url'),
  }
}
