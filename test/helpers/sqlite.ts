/**
 * better-sqlite3 in tests, its objects kept for the life of the worker as the sandbox keeps its own
 * (src/sandbox/core/native-lifetime.ts): on Node 24 a collected one can abort the vitest worker.
 * Settings are written with `db.exec('PRAGMA ...')`, which creates no statement object.
 */
import Database from 'better-sqlite3'

import type {SandboxStore} from '../../src/sandbox/core/store.js'

import {keepAlive} from '../../src/sandbox/core/native-lifetime.js'
import {SqliteStore} from '../../src/sandbox/core/sqlite-store.js'

export const openDatabase = (file: string, options?: Database.Options): Database.Database => keepAlive(new Database(file, options))

export const statement = (db: Database.Database, sql: string): Database.Statement => keepAlive(db.prepare(sql))

/** The SQLite database under a sandbox's store (tests that inject storage faults or read rows directly). */
export function sqliteDb(store: SandboxStore): Database.Database {
  if (!(store instanceof SqliteStore)) throw new Error('this test needs the embedded SQLite store')
  return store.db
}
