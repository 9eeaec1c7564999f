/**
 * The sandbox's SQLite engine in tests (node:sqlite on Node 22.16+, else better-sqlite3:
 * src/sandbox/core/sqlite-driver.ts), its objects kept for the life of the worker as the sandbox
 * keeps its own (src/sandbox/core/native-lifetime.ts): on Node 24 a collected better-sqlite3 one can
 * abort the vitest worker. Settings are written with `db.exec('PRAGMA ...')`, which creates no statement object.
 */
import type {SandboxStore} from '../../src/sandbox/core/store.js'

import {keepAlive} from '../../src/sandbox/core/native-lifetime.js'
import {openSqlite, type SqliteDatabase, type SqliteOptions, type SqliteStatement} from '../../src/sandbox/core/sqlite-driver.js'
import {SqliteStore} from '../../src/sandbox/core/sqlite-store.js'

export const openDatabase = (file: string, options?: SqliteOptions): SqliteDatabase => keepAlive(openSqlite(file, options))

export const statement = (db: SqliteDatabase, sql: string): SqliteStatement => keepAlive(db.prepare(sql))

/** The SQLite database under a sandbox's store (tests that inject storage faults or read rows directly). */
export function sqliteDb(store: SandboxStore): SqliteDatabase {
  if (!(store instanceof SqliteStore)) throw new Error('this test needs the embedded SQLite store')
  return store.db
}

/** The first column of the first row (what better-sqlite3's `pluck().get()` gave). */
export const firstValue = (db: SqliteDatabase, sql: string): unknown => Object.values(statement(db, sql).get() as object)[0]
