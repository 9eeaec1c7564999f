/**
 * The sandbox database in PostgreSQL (`sandbox start --database postgres://...`), shared by every
 * replica: a `pg` pool behind Kysely's PostgresDialect, migrated with the same schema as the
 * embedded SQLite file (schema.ts). Replicas starting together migrate one at a time (a
 * transaction-scoped advisory lock), and a database of a newer schema is refused untouched.
 *
 * The URL's password is a secret: it is never part of an error or a notice (`redactedUrl`).
 */
import {Kysely, PostgresDialect, sql} from 'kysely'
import pg from 'pg'

import {redactedUrl} from './redacted-url.js'
import {migrationSql, newerSchemaError, NewerSchemaError, SCHEMA_VERSION} from './schema.js'

/** Connections per replica: a write request holds one from its start (it waits for its tenant's lock on it) to its commit. */
const POOL_SIZE = 20

/** The advisory lock key held while migrating ('opsctl-sandbox-schema' as an int8). */
const MIGRATION_LOCK = 0x6f7073_63746c_73n

export interface PostgresDatabase {
  db: Kysely<any>
  /** the connections requests run on (postgres-store.ts sends its statements through pg directly: several in one text) */
  pool: pg.Pool
  /** true when the schema was created now (no state yet) */
  created: boolean
  close(): Promise<void>
}

export class DatabaseError extends Error {}

/** Connects (a pool of `max` connections) and brings the schema to SCHEMA_VERSION. */
export async function openPostgres(url: string, options: {max?: number} = {}): Promise<PostgresDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? POOL_SIZE,
    // a request that cannot get a connection (every one held by requests waiting for a tenant's
    // lock) fails with a 500 after this, rather than waiting for ever
    connectionTimeoutMillis: 30_000,
    // a replica that stops answering (frozen, cut off) while it holds a tenant's lock lets it go
    // after this: no request of the sandbox sits idle in a transaction that long (a delay fault is at most 60 s)
    idle_in_transaction_session_timeout: 90_000,
    keepAlive: true,
  })
  // an idle client's error (the server restarted) must not crash the process: the next query reconnects
  pool.on('error', () => undefined)
  const db = new Kysely<any>({dialect: new PostgresDialect({pool})})
  try {
    const created = await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx)
      await sql`CREATE TABLE IF NOT EXISTS sandbox_schema (version integer NOT NULL)`.execute(trx)
      const row = await trx.selectFrom('sandbox_schema').select('version').executeTakeFirst()
      const found = (row?.version as number | undefined) ?? 0
      if (found > SCHEMA_VERSION) throw newerSchemaError(found, `the database ${redactedUrl(url)}`, 'use another database')
      if (found === SCHEMA_VERSION) return false
      for (const step of migrationSql('postgres', found)) await sql.raw(step).execute(trx)
      await (row ? trx.updateTable('sandbox_schema').set({version: SCHEMA_VERSION}) : trx.insertInto('sandbox_schema').values({version: SCHEMA_VERSION})).execute()
      return found === 0
    })
    return {close: () => db.destroy(), created, db, pool}
  } catch (error) {
    await db.destroy()
    if (error instanceof NewerSchemaError) throw error
    // pg's messages name no password; the URL is replaced all the same, should one quote it
    const reason = String((error as Error).message).replaceAll(url, redactedUrl(url))
    throw new DatabaseError(`cannot open the database ${redactedUrl(url)}: ${reason}`)
  }
}
