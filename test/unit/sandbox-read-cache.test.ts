/**
 * Reads served from memory (core/document-cache.ts) never show what the database does not hold:
 * a change rolled back, a commit that failed, an import that failed half-way. And an
 * authenticated read writes nothing: the session's last use is stored at most once a minute.
 */

import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {SqliteDatabase} from '../../src/sandbox/core/sqlite-driver.js'

import {createSandbox} from '../../src/sandbox/core/server.js'
import {openStore, type SqliteStore} from '../../src/sandbox/core/sqlite-store.js'
import {DocTable} from '../../src/sandbox/core/store.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'
import {sqliteDb,statement} from '../helpers/sqlite.js'

const V = {'x-ph-api-version': '3.14.0'}

/** Changes this connection has made since it opened. */
const changesOf = (db: SqliteDatabase) => (statement(db, 'SELECT total_changes() AS n').get() as {n: number}).n

describe('document reads from memory', () => {
  let store: SqliteStore
  let notes: DocTable<{text: string}>
  beforeEach(async () => {
    store = openStore().store
    notes = new DocTable(store.forTenant('default'), 'test.notes')
    await notes.set('kept', {text: 'committed'})
    store.commit()
  })
  afterEach(() => store.close())

  it('does not read back a change that was discarded', async () => {
    await notes.set('kept', {text: 'changed'})
    await notes.set('new', {text: 'added'})
    expect(await notes.get('kept')).toEqual({text: 'changed'})
    store.discard()
    expect(await notes.get('kept')).toEqual({text: 'committed'})
    expect(await notes.get('new')).toBeUndefined()
    expect(await notes.has('new')).toBe(false)
  })

  it('does not read back a change whose commit failed', async () => {
    // a deferred foreign key with no parent: the commit, not the write, fails
    store.db.exec(`
      CREATE TABLE parent (id INTEGER PRIMARY KEY);
      CREATE TABLE orphan (parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER orphan_on_update AFTER UPDATE ON documents BEGIN INSERT INTO orphan VALUES (1); END;
    `)
    await notes.set('kept', {text: 'lost'})
    expect(() => store.commit()).toThrow(/FOREIGN KEY/)
    expect(await notes.get('kept')).toEqual({text: 'committed'})
  })

  it('does not read back what an import wrote before it failed, and keeps what the request wrote before the import', async () => {
    await notes.set('before', {text: 'same request'})
    await expect(
      store.atomically(async () => {
        await notes.set('kept', {text: 'imported'})
        throw new Error('invalid document')
      }),
    ).rejects.toThrow('invalid document')
    expect(await notes.get('kept')).toEqual({text: 'committed'})
    expect(await notes.get('before')).toEqual({text: 'same request'})
  })

  it('reads a copy: changing what was read changes nothing stored', async () => {
    const read = (await notes.get('kept'))!
    read.text = 'scribbled'
    expect(await notes.get('kept')).toEqual({text: 'committed'})
  })

  it('forgets a deleted record and a cleared collection, and sees one table through another over the same collection', async () => {
    const other = new DocTable<{text: string}>(store.forTenant('default'), 'test.notes')
    await notes.delete('kept')
    expect(await other.get('kept')).toBeUndefined()
    await other.set('again', {text: 'x'})
    expect(await notes.get('again')).toEqual({text: 'x'})
    await other.clear()
    expect(await notes.has('again')).toBe(false)
    expect(await notes.count()).toBe(0)
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

      const before = changesOf(sqliteDb(first.store))
      for (let i = 0; i < 20; i++) expect((await read()).statusCode).toBe(200)
      expect(changesOf(sqliteDb(first.store))).toBe(before)
      expect(sqliteDb(first.store).inTransaction).toBe(false)

      // the clock move is a write of its own (the clock is saved with the state)
      await first.app.inject({method: 'POST', url: '/__sandbox/clock', payload: {advance: '29m'}, headers: controlHeaders(first.token)})
      const moved = changesOf(sqliteDb(first.store))
      expect((await read()).statusCode).toBe(200)
      expect(changesOf(sqliteDb(first.store))).toBe(moved + 1)
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
