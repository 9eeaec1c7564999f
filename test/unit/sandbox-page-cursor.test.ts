/**
 * The sandbox's page tokens (src/sandbox/core/page-cursor.ts): what a handler encodes comes back
 * as it was; anything else a client sends as a token is the one 400 every paged handler gives,
 * naming the row's own token parameter, and never reaches the handler as a cursor.
 */
import {describe, expect, it} from 'vitest'
import * as z from 'zod'

import {operation} from '../../src/http/operation.js'
import {pageCursor} from '../../src/sandbox/core/page-cursor.js'
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
