/**
 * The SQLite engine under the sandbox's store: Node's own `node:sqlite` where it has what the
 * store needs (Node 22.16+: `isTransaction`, `columns`), so nothing is compiled at install;
 * else `better-sqlite3` (Node 20) when it can be loaded. It is no runtime dependency: a clone has
 * it as a devDependency, an install from the registry on Node 20 adds it by hand.
 *
 * Both are reached through the few calls the store makes (SqliteDatabase); better-sqlite3's objects
 * already have that shape, node:sqlite's are wrapped once per database and statement.
 */
import {createRequire} from 'node:module'
import {dirname} from 'node:path'
import {fileURLToPath} from 'node:url'

import {ExitCode} from '../../errors.js'
import {NativeModuleError, withNativeModule} from './native-module.js'

export interface SqliteStatement {
  all(...params: unknown[]): unknown[]
  get(...params: unknown[]): unknown
  iterate(...params: unknown[]): IterableIterator<unknown>
  /** true when the statement returns rows */
  readonly reader: boolean
  run(...params: unknown[]): {changes: bigint | number}
}

export interface SqliteDatabase {
  close(): void
  exec(sql: string): unknown
  readonly inTransaction: boolean
  prepare(sql: string): SqliteStatement
}

export interface SqliteOptions {
  readonly?: boolean
}

/** Which engine this Node uses: for messages and tests. */
export function sqliteEngine(): 'better-sqlite3' | 'node:sqlite' {
  return nodeSqlite() ? 'node:sqlite' : 'better-sqlite3'
}

/** Opens `file` (`:memory:` for none); a file held by another process is refused at once (no busy wait). */
export function openSqlite(file: string, options: SqliteOptions = {}): SqliteDatabase {
  const builtin = nodeSqlite()
  if (builtin) return new NodeSqliteDatabase(new builtin.DatabaseSync(file, {readOnly: options.readonly ?? false, timeout: 0}))
  const Database = loadBetterSqlite3()
  return withNativeModule(() => new Database(file, {readonly: options.readonly ?? false, timeout: 0}))
}

/** The SQLite result code of an error from either engine (`SQLITE_BUSY`), undefined for others. */
export function sqliteCode(error: unknown): string | undefined {
  const {code, errcode} = error as {code?: string; errcode?: number}
  if (code?.startsWith('SQLITE_')) return code
  // node:sqlite: ERR_SQLITE_ERROR with the (possibly extended) numeric code
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') return PRIMARY_CODES[errcode & 0xff] ?? 'SQLITE_ERROR'
  return undefined
}

const PRIMARY_CODES: Record<number, string> = {5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 13: 'SQLITE_FULL', 19: 'SQLITE_CONSTRAINT'}

/** The part of node:sqlite used here (@types/node 20 does not describe it). */
interface NodeStatement {
  all(...params: unknown[]): unknown[]
  columns(): unknown[]
  get(...params: unknown[]): unknown
  iterate(...params: unknown[]): IterableIterator<unknown>
  run(...params: unknown[]): {changes: bigint | number}
}
interface NodeDatabase {
  close(): void
  exec(sql: string): void
  readonly isTransaction: boolean
  prepare(sql: string): NodeStatement
}
interface NodeSqlite {
  StatementSync: {prototype: object}
  DatabaseSync: new (file: string, options: {readOnly: boolean; timeout: number}) => NodeDatabase
}
let builtinModule: NodeSqlite | null | undefined

function nodeSqlite(): NodeSqlite | undefined {
  if (builtinModule === undefined) builtinModule = loadNodeSqlite() ?? null
  return builtinModule ?? undefined
}

function loadNodeSqlite(): NodeSqlite | undefined {
  const getBuiltin = (process as {getBuiltinModule?: (id: string) => unknown}).getBuiltinModule
  if (!getBuiltin) return undefined
  // Node prints an ExperimentalWarning when node:sqlite first loads: it says nothing to a user of opsctl.
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: Error | string, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message
    if (/SQLite/i.test(text)) return
    Reflect.apply(emitWarning, process, [warning, ...rest])
  }) as typeof process.emitWarning
  try {
    const module = getBuiltin('node:sqlite') as NodeSqlite | undefined
    // 22.13-22.15 have node:sqlite but not isTransaction (the store's commits rely on it) nor
    // columns(); both came in 22.16, and columns is the one on a prototype
    return module && 'columns' in module.StatementSync.prototype ? module : undefined
  } finally {
    process.emitWarning = emitWarning
  }
}

type BetterSqlite3 = new (file: string, options: {readonly: boolean; timeout: number}) => SqliteDatabase

/**
 * From opsctl's own node_modules (a clone: a devDependency), else beside opsctl in a global install
 * (`npm install --global better-sqlite3` into the same prefix).
 */
function loadBetterSqlite3(): BetterSqlite3 {
  const require = createRequire(import.meta.url)
  const home = installFolder()
  const globalModules = /[\\/]lib[\\/]node_modules[\\/][^\\/]+$/.test(home) ? dirname(home) : undefined
  try {
    // the paths of opsctl's own file first (a clone: its node_modules), then beside a global install
    const paths = [dirname(fileURLToPath(import.meta.url)), ...(globalModules ? [dirname(globalModules)] : [])]
    return require(require.resolve('better-sqlite3', {paths})) as BetterSqlite3
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error
    const fix = globalModules
      ? `npm install --global better-sqlite3 --prefix ${dirname(dirname(globalModules))}`
      : `npm install better-sqlite3 --prefix ${home}`
    throw new NativeModuleError(
      `The sandbox needs SQLite: use Node 22.16 or later (it has node:sqlite), or add it to this Node ${process.version} with: ${fix}`,
      ExitCode.Unexpected,
    )
  }
}

/** The folder holding opsctl's package.json (the bundle is in its dist/). */
function installFolder(): string {
  let folder = dirname(fileURLToPath(import.meta.url))
  while (!folder.endsWith('dist') && dirname(folder) !== folder) folder = dirname(folder)
  return dirname(folder)
}

/** As better-sqlite3 does: a closed database is in no transaction, and closing it again does nothing. */
class NodeSqliteDatabase implements SqliteDatabase {
  private open = true

  constructor(private readonly db: NodeDatabase) {}

  get inTransaction(): boolean {
    return this.open && this.db.isTransaction
  }

  close(): void {
    if (!this.open) return
    this.open = false
    this.db.close()
  }

  exec(sql: string): void {
    this.db.exec(sql)
  }

  prepare(sql: string): SqliteStatement {
    return new NodeSqliteStatement(this.db.prepare(sql))
  }
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean

  constructor(private readonly statement: NodeStatement) {
    this.reader = statement.columns().length > 0
  }

  all(...params: unknown[]): unknown[] {
    return this.statement.all(...params)
  }

  get(...params: unknown[]): unknown {
    return this.statement.get(...params)
  }

  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.statement.iterate(...params) as IterableIterator<unknown>
  }

  run(...params: unknown[]): {changes: bigint | number} {
    return this.statement.run(...params)
  }
}
