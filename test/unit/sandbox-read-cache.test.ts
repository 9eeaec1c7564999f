/**
 * Reads served from memory (core/document-cache.ts) never show what the database does not hold:
 * a change rolled back, a commit that failed, an import that failed half-way. And an
 * authenticated read writes nothing: the session's last use is stored at most once a minute.
 */
import type Database from 'better-sqlite3'

import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createSandbox} from '../../src/sandbox/core/server.js'
import {DocTable, openStore, type SandboxStore} from '../../src/sandbox/core/store.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'
import {statement} from '../helpers/sqlite.js'

const V = {'x-ph-api-version': '3.14.0'}

/** Changes this connection has made since it opened. */
const changesOf = (db: Database.Database) => (statement(db, 'SELECT total_changes() AS n').get() as {n: number}).n

describe('document reads from memory', () => {
  let store: SandboxStore
  let notes: DocTable<{text: string}>
  beforeEach(() => {
    store = openStore().store
    notes = new DocTable(store.forTenant('default'), 'test.notes')
    notes.set('kept', {text: 'committed'})
    store.commit()
  })
  afterEach(() => store.close())

  it('does not read back a change that was discarded', () => {
    notes.set('kept', {text: 'changed'})
    notes.set('new', {text: 'added'})
    expect(notes.get('kept')).toEqual({text: 'changed'})
    store.discard()
    expect(notes.get('kept')).toEqual({text: 'committed'})
    expect(notes.get('new')).toBeUndefined()
    expect(notes.has('new')).toBe(false)
  })

  it('does not read back a change whose commit failed', () => {
    // a deferred foreign key with no parent: the commit, not the write, fails
    store.db.exec(`
      CREATE TABLE parent (id INTEGER PRIMARY KEY);
      CREATE TABLE orphan (parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER orphan_on_update AFTER UPDATE ON documents BEGIN INSERT INTO orphan VALUES (1); END;
    `)
    notes.set('kept', {text: 'lost'})
    expect(() => store.commit()).toThrow(/FOREIGN KEY/)
    expect(notes.get('kept')).toEqual({text: 'committed'})
  })

  it('does not read back what an import wrote before it failed, and keeps what the request wrote before the import', () => {
    notes.set('before', {text: 'same request'})
    expect(() =>
      store.atomically(() => {
        notes.set('kept', {text: 'imported'})
        throw new Error('invalid document')
      }),
    ).toThrow('invalid document')
    expect(notes.get('kept')).toEqual({text: 'committed'})
    expect(notes.get('before')).toEqual({text: 'same request'})
  })

  it('reads a copy: changing what was read changes nothing stored', () => {
    const read = notes.get('kept')!
    read.text = 'scribbled'
    expect(notes.get('kept')).toEqual({text: 'committed'})
  })

  it('forgets a deleted record and a cleared collection, and sees one table through another over the same collection', () => {
    const other = new DocTable<{text: string}>(store.forTenant('default'), 'test.notes')
    notes.delete('kept')
    expect(other.get('kept')).toBeUndefined()
    other.set('again', {text: 'x'})
    expect(notes.get('again')).toEqual({text: 'x'})
    other.clear()
    expect(notes.has('again')).toBe(false)
    expect(notes.size).toBe(0)
  })
})

describe('an authenticated read', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsctl-read-cache-'))
  })
  afterEach(() => rmSync(dir, {force: true, recursive: true}))

  it('writes nothing; the last use is stored once a minute has passed, so the session outlives a restart', async () => {
    const stateFile = join(dir, 'state.db')
    const clock = '2026-11-21T02:00:00Z'
    const first = await createSandbox({clock, modules: testModules, port: 0, stateFile})
    let cookie = ''
    try {
      const signIn = await first.app.inject({method: 'POST', url: '/api/sign-in', payload: {email: 'ana@example.com'}, headers: V})
      cookie = String(signIn.headers['set-cookie']).split(';')[0]
      const read = () => first.app.inject({url: '/api/users/me/notes', headers: {...V, cookie}})

      const before = changesOf(first.store.db)
      for (let i = 0; i < 20; i++) expect((await read()).statusCode).toBe(200)
      expect(changesOf(first.store.db)).toBe(before)
      expect(first.store.db.inTransaction).toBe(false)

      // the clock move is a write of its own (the clock is saved with the state)
      await first.app.inject({method: 'POST', url: '/__sandbox/clock', payload: {advance: '29m'}, headers: controlHeaders(first.token)})
      const moved = changesOf(first.store.db)
      expect((await read()).statusCode).toBe(200)
      expect(changesOf(first.store.db)).toBe(moved + 1)
    } finally {
      await first.close()
    }

    // 29 minutes on, 20 more: idle 20 minutes since the stored last use, not 49 since sign-in
    const second = await createSandbox({clock: '2026-11-21T02:49:00Z', modules: testModules, port: 0, stateFile})
    try {
      expect((await second.app.inject({url: '/api/users/me/notes', headers: {...V, cookie}})).statusCode).toBe(200)
    } finally {
      await second.close()
    }
  })
})
