/**
 * The sandbox schema in a real PostgreSQL (a throwaway cluster, test/helpers/postgres.ts): the same
 * tables as the SQLite file, migrated once when replicas start together, a newer schema refused,
 * and the URL's password in no error.
 */
import {sql} from 'kysely'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {openPostgres} from '../../src/sandbox/core/postgres-database.js'
import {SCHEMA_VERSION} from '../../src/sandbox/core/schema.js'
import {openStore} from '../../src/sandbox/core/sqlite-store.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'
import {statement} from '../helpers/sqlite.js'

const skip = postgresSkipReason()

describe.skipIf(skip !== undefined)(`the sandbox schema in PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: PostgresCluster
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('is migrated once by replicas that start together, and has the columns of the SQLite schema', async () => {
    const opened = await Promise.all([openPostgres(cluster.url), openPostgres(cluster.url), openPostgres(cluster.url)])
    try {
      expect(opened.filter((o) => o.created)).toHaveLength(1)
      const columns = await sql<{column_name: string; table_name: string}>`
        SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`.execute(
        opened[0].db,
      )
      const pgTables = new Map<string, string[]>()
      for (const {column_name: column, table_name: table} of columns.rows) pgTables.set(table, [...(pgTables.get(table) ?? []), column])

      const {store} = openStore()
      for (const table of ['documents', 'events']) {
        const sqliteColumns = (statement(store.db, `PRAGMA table_info(${table})`).all() as {name: string}[]).map((c) => c.name)
        expect(pgTables.get(table), table).toEqual(sqliteColumns)
      }

      store.close()
      const version = await opened[0].db.selectFrom('sandbox_schema').select('version').execute()
      expect(version).toEqual([{version: SCHEMA_VERSION}])
    } finally {
      await Promise.all(opened.map((o) => o.close()))
    }
  })

  it('keeps documents in insertion order and refuses a database of a newer schema untouched', async () => {
    const {close, db} = await openPostgres(cluster.url)
    try {
      await db.insertInto('documents').values({collection: 'c', doc: '{}', key: 'b', tenant: 't'}).execute()
      await db.insertInto('documents').values({collection: 'c', doc: '{}', key: 'a', tenant: 't'}).execute()
      const keys = await db.selectFrom('documents').select('key').where('tenant', '=', 't').orderBy('seq').execute()
      expect(keys.map((k) => k.key)).toEqual(['b', 'a'])
      await db.updateTable('sandbox_schema').set({version: SCHEMA_VERSION + 1}).execute()
    } finally {
      await close()
    }

    await expect(openPostgres(cluster.url)).rejects.toThrow(`schema version ${SCHEMA_VERSION + 1}, written by a newer opsctl`)
  })

  it('names the database without its password when it cannot be opened', async () => {
    const wrong = cluster.url.replace('sandbox-test-password', 'not-the-password-xyz')
    const error = await openPostgres(wrong).catch((error_: unknown) => error_ as Error)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(/cannot open the database postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/)
    expect((error as Error).message).not.toContain('not-the-password-xyz')
  })
})
