/**
 * Paging from the row: a command that declares a paged row gets `--all`, `--limit` and the row's
 * own token flag, and `streamPages` lists one page, N items or every page, in any format, with the
 * note that says how to go on. Shown on a test-only row whose token and items are named unlike
 * getEvents', so nothing here can pass by naming events.
 */
import {afterEach, describe, expect, it} from 'vitest'
import * as z from 'zod'

import type {CallInput} from '../../src/http/client.js'

import {BaseCommand} from '../../src/cli/base-command.js'
import {localFlags} from '../../src/cli/flags.js'
import {type PagedDocument, pagingFlags} from '../../src/cli/paging.js'
import {operation} from '../../src/http/operation.js'
import {runCommand} from '../helpers/command.js'

const Thing = z.looseObject({id: z.string(), name: z.string()})
const listThings = operation({
  id: 'listThings',
  service: 'health',
  method: 'GET',
  path: '/things',
  auth: 'none',
  query: z.object({cursor: z.string().optional(), pageCursor: z.string().optional()}),
  response: z.looseObject({things: z.array(Thing), more: z.looseObject({after: z.string().optional()})}),
  paging: {token: 'pageCursor', items: 'things', next: 'more.after'},
})

/** Three pages of two things: t1 t2 | t3 t4 | t5 t6; a page is asked for by the id of the thing before it. */
const THINGS = Array.from({length: 6}, (_, i) => ({id: `t${i + 1}`, name: `thing ${i + 1}`}))
const asked: (string | undefined)[] = []
const client = {
  async call(_op: unknown, input: CallInput) {
    const token = input.query?.pageCursor as string | undefined
    asked.push(token)
    const start = token ? THINGS.findIndex((t) => t.id === token) + 1 : 0
    const things = THINGS.slice(start, start + 2)
    const after = start + 2 < THINGS.length ? things.at(-1)!.id : undefined
    return {data: {things, more: after ? {after} : {}}, headers: {}, status: 200}
  },
} as never

class ThingsList extends BaseCommand<typeof ThingsList> {
  static override baseFlags = localFlags
  static override flags = pagingFlags(listThings)
  static override view = {columns: ['id', 'name'], list: 'things'}

  protected async execute(): Promise<PagedDocument<typeof listThings>> {
    return this.streamPages(client, listThings, {query: {}})
  }
}

afterEach(() => {
  asked.length = 0
})

describe('pagingFlags', () => {
  it('names the token flag from the row and the items in --limit', () => {
    const flags = pagingFlags(listThings)
    expect(Object.keys(flags).sort()).toEqual(['all', 'limit', 'page-cursor'])
    expect(flags.limit.description).toBe('at most this many things, up to 10000 (follows pages as needed; --all for more)')
  })
})

describe('streamPages', () => {
  it('lists one page by default and says how to go on, with the row token flag', async () => {
    const r = await runCommand(ThingsList, ['-o', 'json'])
    expect(JSON.parse(r.stdout)).toEqual({count: 2, things: THINGS.slice(0, 2), paging: {next: 't2'}})
    expect(r.stderr).toBe('More things: add --page-cursor t2, or --all for every page\n')
    expect(asked).toEqual([undefined])
  })

  it('starts from the token flag and follows every page with --all, writing rows as they arrive', async () => {
    const r = await runCommand(ThingsList, ['--page-cursor', 't2', '--all', '-o', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim().split('\n')).toEqual(['id,name', 't3,thing 3', 't4,thing 4', 't5,thing 5', 't6,thing 6'])
    expect(r.stderr).toBe('')
    expect(asked).toEqual(['t2', 't4'])
  })

  it('--limit reads pages until that many items, and ends inside a page with no token', async () => {
    const doc = JSON.parse((await runCommand(ThingsList, ['--limit', '3', '--json'])).stdout)
    expect(doc).toEqual({count: 3, things: THINGS.slice(0, 3), paging: {}})
    expect(asked).toEqual([undefined, 't2'])
  })

  it('under --json the note stays off stderr; the next token is in the document', async () => {
    const r = await runCommand(ThingsList, ['--json'])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout).paging).toEqual({next: 't2'})
  })

  it('refuses a view whose list is not the row items (a programming error, caught by the first run)', async () => {
    class Mismatched extends ThingsList {
      static override view = {columns: ['id'], list: 'events'}
    }
    const r = await runCommand(Mismatched, ['--json'])
    expect(r.code).toBe(1)
    expect(asked).toEqual([])
  })
})
