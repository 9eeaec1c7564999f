/**
 * The one schema of the sandbox database, for both engines (SQLite, the embedded default, and
 * PostgreSQL, shared by replicas), written once with Kysely's schema builder. Each entry of
 * MIGRATIONS takes a database from version i to i + 1; opening a database runs the ones it lacks,
 * in order, in one transaction. SQLite keeps the version in `user_version`, PostgreSQL in the
 * `sandbox_schema` table. A database of a higher version than this code knows is refused before
 * anything is written to it.
 *
 * Records are stored whole, as JSON documents (`doc`): stored records are tolerant like the
 * services' schemas, so a field this version does not name survives. Beside the document, the
 * events table has the columns its filters and its paging order read, with indexes for them.
 */

import {
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'

import type {SqliteDatabase} from './sqlite-driver.js'

import {keepAlive} from './native-lifetime.js'

export type Engine = 'postgres' | 'sqlite'

/** A Kysely that only compiles (no connection): the SQL of a builder in an engine's dialect. */
export function compilerFor(engine: Engine): Kysely<any> {
  return new Kysely<any>({
    dialect: {
      createAdapter: () => (engine === 'sqlite' ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (engine === 'sqlite' ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
      createQueryCompiler: () => (engine === 'sqlite' ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
  })
}

/** A builder or a raw `sql` step: both compile with the Kysely that made them. */
type Step = {compile(db: Kysely<any>): CompiledQuery}
type Migration = (db: Kysely<any>, engine: Engine) => Step[]

/** The events table and its indexes as of version 1 (`tenant` false) and 2. */
function eventsTable(db: Kysely<any>, name: string, tenant: boolean): Step {
  let table = db.schema.createTable(name)
  if (tenant) table = table.addColumn('tenant', 'text', (c) => c.notNull())
  return table
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('medication_type', 'text')
    .addColumn('medication_id', 'text')
    .addColumn('source', 'text')
    .addColumn('night_event', 'integer')
    .addColumn('preemptive', 'integer', (c) => c.notNull())
    .addColumn('address_confirmed', 'integer', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${name}_pkey`, (tenant ? ['tenant', 'user_id', 'id'] : ['user_id', 'id']) as never)
}

function eventIndexes(db: Kysely<any>, tenant: boolean): Step[] {
  const lead = tenant ? ['tenant', 'user_id'] : ['user_id']
  return [
    db.schema.createIndex('events_by_date').on('events').columns([...lead, 'date', 'id']),
    db.schema.createIndex('events_by_type').on('events').columns([...lead, 'medication_type', 'date', 'id']),
    db.schema.createIndex('events_by_medication').on('events').columns([...lead, 'medication_id', 'date', 'id']),
    db.schema.createIndex('events_by_source').on('events').columns([...lead, 'source', 'date', 'id']),
  ]
}

/** `seq` orders a collection by insertion: SQLite's rowid, a PostgreSQL identity. */
const seqType = (engine: Engine) => (engine === 'sqlite' ? 'integer' : 'bigserial')

const MIGRATIONS: readonly Migration[] = [
  // 1: documents by collection and key (users, sessions, checkouts, ...), events
  (db, engine) => [
    db.schema
      .createTable('documents')
      .addColumn('seq', seqType(engine), (c) => c.primaryKey())
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('doc', 'text', (c) => c.notNull())
      .addUniqueConstraint('documents_collection_key', ['collection', 'key']),
    eventsTable(db, 'events', false),
    ...eventIndexes(db, false),
  ],
  // 2: tenants (core/tenants.ts): every row belongs to one, and its keys lead with it; the rows of
  // earlier versions are the default tenant's
  (db, engine) => [
    db.schema
      .createTable('documents_v2')
      .addColumn('seq', seqType(engine), (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('doc', 'text', (c) => c.notNull())
      .addUniqueConstraint('documents_tenant_collection_key', ['tenant', 'collection', 'key']),
    db
      .insertInto('documents_v2')
      .columns(['seq', 'tenant', 'collection', 'key', 'doc'])
      .expression(db.selectFrom('documents').select(['seq', sql.lit('default').as('tenant'), 'collection', 'key', 'doc'])),
    db.schema.dropTable('documents'),
    db.schema.alterTable('documents_v2').renameTo('documents'),
    eventsTable(db, 'events_v2', true),
    db
      .insertInto('events_v2')
      .columns(['tenant', 'user_id', 'id', 'date', 'medication_type', 'medication_id', 'source', 'night_event', 'preemptive', 'address_confirmed', 'doc'])
      .expression(
        db
          .selectFrom('events')
          .select([
            sql.lit('default').as('tenant'),
            'user_id',
            'id',
            'date',
            'medication_type',
            'medication_id',
            'source',
            'night_event',
            'preemptive',
            'address_confirmed',
            'doc',
          ]),
      ),
    db.schema.dropTable('events'),
    db.schema.alterTable('events_v2').renameTo('events'),
    ...eventIndexes(db, true),
    // a PostgreSQL identity continues after the rows copied with their seq
    ...(engine === 'postgres' ? [sql`SELECT setval(pg_get_serial_sequence('documents', 'seq'), coalesce(max(seq), 0) + 1, false) FROM documents`] : []),
  ],
  // 3: webhook deliveries still due get a table of their own, so that one replica claims each
  // (`claimed_until`, in ms since the epoch, real time) and another takes it over when that claim
  // lapses; those of earlier versions were documents of the collection core.deliveries
  (db, engine) => [
    db.schema
      .createTable('deliveries')
      .addColumn('seq', seqType(engine), (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('doc', 'text', (c) => c.notNull())
      .addColumn('claimed_until', 'bigint')
      .addUniqueConstraint('deliveries_tenant_id', ['tenant', 'id']),
    db.schema.createIndex('deliveries_by_claim').on('deliveries').columns(['claimed_until']),
    db
      .insertInto('deliveries')
      .columns(['tenant', 'id', 'doc'])
      .expression(db.selectFrom('documents').select(['tenant', 'key', 'doc']).where('collection', '=', sql.lit('core.deliveries')).orderBy('seq')),
    db.deleteFrom('documents').where('collection', '=', sql.lit('core.deliveries')),
  ],
  // 4: due work runs on the tenant's time. A row of `deliveries` (a webhook delivery, or a module's
  // job such as a checkout's expiry) is due at `due_at` (ms since the epoch, real time: the tenant's
  // due time less its clock's offset, moved with the clock; null: now). Every attempt of every
  // delivery is kept in `delivery_attempts`, so every replica lists and resends the same.
  (db, engine) => [
    db.schema.alterTable('deliveries').addColumn('due_at', 'bigint'),
    db.schema.createIndex('deliveries_by_due').on('deliveries').columns(['due_at']),
    db.schema
      .createTable('delivery_attempts')
      .addColumn('seq', seqType(engine), (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('checkout_id', 'text', (c) => c.notNull())
      .addColumn('doc', 'text', (c) => c.notNull()),
    db.schema.createIndex('delivery_attempts_by_tenant').on('delivery_attempts').columns(['tenant', 'seq']),
  ],
]

/** The SQL texts of the migrations from version `from`, in an engine's dialect. */
export function migrationSql(engine: Engine, from: number): string[] {
  const db = compilerFor(engine)
  return MIGRATIONS.slice(from).flatMap((migration) => migration(db, engine).map((step) => step.compile(db).sql))
}

/** The version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length

export class NewerSchemaError extends Error {}

/** The refusal of a database written by a newer opsctl (`where`: the state file, or "the database"). */
export function newerSchemaError(found: number, where: string, instead: string): NewerSchemaError {
  return new NewerSchemaError(
    `${where} is schema version ${found}, written by a newer opsctl; this one reads up to version ${SCHEMA_VERSION}. Upgrade opsctl, or ${instead}`,
  )
}

/**
 * The version the database has: 0 is a new database. Throws NewerSchemaError for one written by
 * a newer opsctl; call it before anything writes to the file, so a refused file stays as it was.
 */
export function schemaVersionOf(db: SqliteDatabase, file: string): number {
  const found = (keepAlive(db.prepare('PRAGMA user_version')).get() as {user_version: number}).user_version
  if (found > SCHEMA_VERSION) throw newerSchemaError(found, `the state file ${file}`, 'start with another --state file')
  return found
}

/** Brings a database of version `found` to SCHEMA_VERSION, in one transaction. */
export function migrate(db: SqliteDatabase, found: number): void {
  if (found >= SCHEMA_VERSION) return
  const steps = migrationSql('sqlite', found)
  db.exec('BEGIN')
  try {
    for (const step of steps) db.exec(step)
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`)
    db.exec('COMMIT')
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw error
  }
}
