/**
 * A small service defined with `defineService` and nothing else: one POST, one paged GET, one
 * destructive DELETE. The sandbox serves it from the definition, and the client and `paginate`
 * use it, with no other code written for it than the sandbox module's handlers.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'

import {UsageError} from '../../src/errors.js'
import {ServiceClient} from '../../src/http/client.js'
import {defineService} from '../../src/http/operation.js'
import {paginate, walk} from '../../src/http/paginate.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {DocTable} from '../../src/sandbox/core/store.js'
import {type HandlersFor, SandboxError, sandboxModule} from '../../src/sandbox/types.js'

const Note = z.looseObject({id: z.string(), text: z.string()})
const PAGE_SIZE = 2

const notes = defineService({
  name: 'health',
  operations: {
    addNote: {
      method: 'POST',
      path: '/api/users/{userId}/notes',
      auth: 'none',
      body: z.looseObject({text: z.string().min(1)}),
      response: Note,
      successStatus: 201,
    },
    listNotes: {
      method: 'GET',
      path: '/api/users/{userId}/notes',
      auth: 'none',
      query: z.looseObject({order: z.enum(['oldest', 'newest']).optional(), pagingToken: z.string().optional()}),
      response: z.looseObject({notes: z.array(Note), paging: z.looseObject({next: z.string().optional()})}),
      paging: {token: 'pagingToken', items: 'notes', next: 'paging.next'},
    },
    deleteNote: {
      method: 'DELETE',
      path: '/api/users/{userId}/notes/{noteId}',
      auth: 'none',
      successStatus: 204,
      destructive: true,
    },
  },
})

type NotesState = DocTable<{id: string; text: string}[]>
const notesOf = async (state: unknown, userId: string) => (await (state as NotesState).get(userId)) ?? []
const saveNotes = (state: unknown, userId: string, list: {id: string; text: string}[]) => (state as NotesState).set(userId, list)

const handlers: HandlersFor<typeof notes> = {
  async addNote(req, ctx) {
    const note = {id: ctx.id('note'), text: req.body.text}
    await saveNotes(ctx.state.health, req.params.userId, [...(await notesOf(ctx.state.health, req.params.userId)), note])
    return note
  },
  async listNotes(req, ctx) {
    const list = await notesOf(ctx.state.health, req.params.userId)
    const ordered = req.query.order === 'newest' ? list.toReversed() : list
    const start = Number(req.query.pagingToken ?? 0)
    const end = start + PAGE_SIZE
    return {notes: ordered.slice(start, end), paging: end < ordered.length ? {next: String(end)} : {}}
  },
  async deleteNote(req, ctx) {
    const list = await notesOf(ctx.state.health, req.params.userId)
    const at = list.findIndex((n) => n.id === req.params.noteId)
    if (at === -1) throw new SandboxError(404, 'NOT_FOUND', `Note ${req.params.noteId} not found`)
    list.splice(at, 1)
    await saveNotes(ctx.state.health, req.params.userId, list)
  },
}

let sent = 0
const notesModule = sandboxModule({
  service: notes,
  prefix: '',
  handlers,
  openState: (store) =>
    Object.assign(new DocTable<{id: string; text: string}[]>(store, 'test.notes'), {
      dump: async () => ({}),
      async load() {},
      async reset() {},
    }),
  routes(app) {
    app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/api/')) sent++
    })
  },
})

const V = {'x-ph-api-version': '3.14.0'}
let sb: RunningSandbox
let client: ServiceClient

beforeAll(async () => {
  sb = await createSandbox({port: 0, modules: [notesModule]})
  client = new ServiceClient({target: {service: 'health', baseUrl: sb.origin}})
})
afterAll(() => sb.close())

describe('defineService', () => {
  it('fills each row from the definition: id, service, success status, idempotence from the method', () => {
    expect(notes.list.map((op) => [op.id, op.service, op.successStatus, op.idempotent, op.destructive])).toEqual([
      ['addNote', 'health', 201, false, false],
      ['listNotes', 'health', 200, true, false],
      ['deleteNote', 'health', 204, true, true],
    ])
  })
})

describe('the sandbox, from the definition alone', () => {
  it('registers a route per row and answers each with its row success status', async () => {
    const added = await sb.app.inject({method: 'POST', url: '/api/users/u1/notes', headers: V, payload: {text: 'first'}})
    expect([added.statusCode, added.json().text]).toEqual([201, 'first'])
    const listed = await sb.app.inject({method: 'GET', url: '/api/users/u1/notes', headers: V})
    expect([listed.statusCode, listed.json().notes]).toEqual([200, [added.json()]])
    const deleted = await sb.app.inject({method: 'DELETE', url: `/api/users/u1/notes/${added.json().id}`, headers: V})
    expect([deleted.statusCode, deleted.body]).toEqual([204, ''])
  })

  it('validates with the row schemas and serves nothing the table does not name', async () => {
    const empty = await sb.app.inject({method: 'POST', url: '/api/users/u1/notes', headers: V, payload: {text: ''}})
    expect([empty.statusCode, empty.json().code]).toEqual([400, 'BAD_REQUEST'])
    const unnamed = await sb.app.inject({method: 'PUT', url: '/api/users/u1/notes/n1', headers: V, payload: {text: 'x'}})
    expect(unnamed.statusCode).toBe(404)
  })

  it('refuses to start with a module that lacks a handler (what tsc refuses in typed code)', async () => {
    const {deleteNote: _missing, ...partial} = handlers
    const broken = sandboxModule({...notesModule, service: notes, handlers: partial as typeof handlers})
    await expect(createSandbox({port: 0, modules: [broken]})).rejects.toThrow('no handler for deleteNote')
  })
})

describe('paginate, driven by the row paging', () => {
  const texts = ['a', 'b', 'c', 'd', 'e']
  beforeAll(async () => {
    for (const text of texts) await client.call(notes.operations.addNote, {params: {userId: 'u2'}, body: {text}})
  })

  it('follows the pages to the last one, sending the same query with each token', async () => {
    const pages: {items: string[]; token?: string; next?: string}[] = []
    for await (const page of paginate(client, notes.operations.listNotes, {params: {userId: 'u2'}, query: {order: 'newest'}})) {
      pages.push({items: page.items.map((n) => n.text), token: page.token, next: page.next})
    }

    expect(pages).toEqual([
      {items: ['e', 'd'], token: undefined, next: '2'},
      {items: ['c', 'b'], token: '2', next: '4'},
      {items: ['a'], token: '4', next: undefined},
    ])
  })

  it('starts from a token in the query and asks for no page the consumer does not want', async () => {
    const before = sent
    const read: string[] = []
    const result = await walk(
      paginate(client, notes.operations.listNotes, {params: {userId: 'u2'}, query: {pagingToken: '1'}}),
      {limit: 2},
      (note) => {
        read.push(note.text)
      },
    )
    expect([read, result]).toEqual([['b', 'c'], {count: 2, next: '3'}])
    expect(sent - before).toBe(1)
  })

  it('walks every page with all, and stops inside a page with no token to resume from', async () => {
    const all = await walk(paginate(client, notes.operations.listNotes, {params: {userId: 'u2'}}), {all: true}, () => {})
    expect(all).toEqual({count: texts.length})
    const inside = await walk(paginate(client, notes.operations.listNotes, {params: {userId: 'u2'}}), {limit: 3}, () => {})
    expect(inside).toEqual({count: 3})
  })
})

describe('the client, from the row', () => {
  it('validates the query with the row schema before sending: exit 2, nothing sent', async () => {
    const before = sent
    const query = {order: 'sideways'} as unknown as {order: 'newest'} // as a flag value typed by a user would be
    const error = await client.call(notes.operations.listNotes, {params: {userId: 'u2'}, query}).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toContain('order')
    expect(sent).toBe(before)
  })
})

