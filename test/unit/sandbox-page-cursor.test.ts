/**
 * The sandbox's page tokens (src/sandbox/core/page-cursor.ts): what a handler encodes comes back
 * as it was; anything else a client sends as a token is the one 400 every paged handler gives,
 * naming the row's own token parameter, and never reaches the handler as a cursor.
 */
import {describe, expect, it} from 'vitest'
import * as z from 'zod'

import {operation} from '../../src/http/operation.js'
import {pageCursor} from '../../src/sandbox/core/page-cursor.js'
import {listPager} from '../../src/sandbox/core/page-list.js'
import {SandboxError} from '../../src/sandbox/core/sandbox-error.js'

const listThings = operation({
  id: 'listThings',
  service: 'health',
  method: 'GET',
  path: '/things',
  auth: 'none',
  query: z.object({pageCursor: z.string().optional()}),
  paging: {token: 'pageCursor', items: 'things', next: 'next'},
})
const cursor = pageCursor(listThings, z.object({after: z.string(), at: z.number().int()}))

function refusal(token: string): SandboxError {
  try {
    cursor.decode(token)
  } catch (error) {
    if (error instanceof SandboxError) return error
    throw error
  }

  throw new Error(`${token} was accepted`)
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

describe('pageCursor', () => {
  it('gives back what it encoded, in a token that is one URL-safe query value', () => {
    const token = cursor.encode({after: 'thing/7 ü', at: 3})
    expect(token).toMatch(/^[\w-]+$/)
    expect(cursor.decode(token)).toEqual({after: 'thing/7 ü', at: 3})
  })

  it.each([
    ['garbage', 'garbage!'],
    ['not JSON', b64('{"after":')],
    ['an edited shape', b64({after: 'x', at: 'three'})],
    ['a missing key', b64({at: 1})],
    ['base64 of a string', b64('"hello"')],
    ['oversized', b64({after: 'x'.repeat(5000), at: 1})],
    ['empty', ''],
  ])('%s is the 400 naming the row token parameter', (_, token) => {
    const err = refusal(token)
    expect([err.status, err.code, err.fields]).toEqual([400, 'INVALID_PAGING_TOKEN', [{field: 'pageCursor', description: 'invalid'}]])
  })
})

describe('listPager: a list held in memory, a page at a time', () => {
  const pager = listPager<{id: string}>(listThings, {keyOf: (thing) => thing.id, size: 2})
  const things = (...ids: string[]) => ids.map((id) => ({id}))
  const ids = (page: {items: {id: string}[]}) => page.items.map((thing) => thing.id)

  it('follows the tokens through every item once, with no token after the last page', () => {
    const list = things('a', 'b', 'c', 'd', 'e')
    const pages: string[][] = []
    let token: string | undefined
    do {
      const page = pager(list, token)
      pages.push(ids(page))
      token = page.next
    } while (token !== undefined)

    expect(pages).toEqual([['a', 'b'], ['c', 'd'], ['e']])
    expect(pager(things('a', 'b'), undefined).next).toBeUndefined()
    expect(pager([], undefined)).toEqual({items: []})
  })

  it('resumes after the item the token names when items before it were added or removed, and at its place when it is gone', () => {
    const first = pager(things('a', 'b', 'c', 'd', 'e'), undefined)
    expect(ids(pager(things('x', 'a', 'b', 'c', 'd', 'e'), first.next))).toEqual(['c', 'd'])
    expect(ids(pager(things('b', 'c', 'd', 'e'), first.next))).toEqual(['c', 'd'])
    expect(ids(pager(things('a', 'c', 'd', 'e'), first.next))).toEqual(['d', 'e'])
  })

  it('refuses a token it did not write with the row 400', () => {
    expect(() => pager(things('a'), b64([1]))).toThrow(SandboxError)
    expect(() => pager(things('a'), 'garbage!')).toThrow('The paging token is not one this service issued')
  })
})
