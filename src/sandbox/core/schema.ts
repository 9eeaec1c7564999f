/**
 * The one schema of the sandbox database, versioned by SQLite's `user_version`. Each entry of
 * MIGRATIONS takes a database from version i to i + 1; opening a database runs the ones it lacks,
 * in order, in one transaction. A database of a higher version than this code knows is refused
 * before anything is written to it.
 *
 * Records are stored whole, as JSON documents (`doc`): stored records are tolerant like the
 * services' schemas, so a field this version does not name survives. Beside the document, the
 * events table has the columns its filters and its paging order read, with indexes for them.
 */
import type Database from 'better-sqlite3'

import {keepAlive} from './native-lifetime.js'

const MIGRATIONS: readonly string[] = [
  // 1: documents by collection and key (users, sessions, checkouts, ...), events, pending webhook deliveries
  `
  CREATE TABLE documents (
    seq INTEGER PRIMARY KEY,
    collection TEXT NOT NULL,
    key TEXT NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (collection, key)
  );
  CREATE TABLE events (
    user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    date TEXT NOT NULL,
    medication_type TEXT,
    medication_id TEXT,
    source TEXT,
    night_event INTEGER,
    preemptive INTEGER NOT NULL,
    address_confirmed INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (user_id, id)
  );
  CREATE INDEX events_by_date ON events (user_id, date, id);
  CREATE INDEX events_by_type ON events (user_id, medication_type, date, id);
  CREATE INDEX events_by_medication ON events (user_id, medication_id, date, id);
  CREATE INDEX events_by_source ON events (user_id, source, date, id);
  `,
  // 2: tenants (core/tenants.ts): every row belongs to one, and its keys lead with it; the rows of
  // earlier versions are the default tenant's
  `
  CREATE TABLE documents_v2 (
    seq INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL,
    collection TEXT NOT NULL,
    key TEXT NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (tenant, collection, key)
  );
  INSERT INTO documents_v2 (seq, tenant, collection, key, doc) SELECT seq, 'default', collection, key, doc FROM documents;
  DROP TABLE documents;
  ALTER TABLE documents_v2 RENAME TO documents;
  CREATE TABLE events_v2 (
    tenant TEXT NOT NULL,
    user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    date TEXT NOT NULL,
    medication_type TEXT,
    medication_id TEXT,
    source TEXT,
    night_event INTEGER,
    preemptive INTEGER NOT NULL,
    address_confirmed INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, user_id, id)
  );
  INSERT INTO events_v2 SELECT 'default', user_id, id, date, medication_type, medication_id, source, night_event, preemptive, address_confirmed, doc FROM events;
  DROP TABLE events;
  ALTER TABLE events_v2 RENAME TO events;
  CREATE INDEX events_by_date ON events (tenant, user_id, date, id);
  CREATE INDEX events_by_type ON events (tenant, user_id, medication_type, date, id);
  CREATE INDEX events_by_medication ON events (tenant, user_id, medication_id, date, id);
  CREATE INDEX events_by_source ON events (tenant, user_id, source, date, id);
  `,
]

/** The version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length

export class NewerSchemaError extends Error {}

/**
 * The version the database has: 0 is a new database. Throws NewerSchemaError for one written by
 * a newer opsctl; call it before anything writes to the file, so a refused file stays as it was.
 */
export function schemaVersionOf(db: Database.Database, file: string): number {
  const found = keepAlive(db.prepare('PRAGMA user_version')).pluck().get() as number
  if (found > SCHEMA_VERSION) {
    throw new NewerSchemaError(
      `the state file ${file} is schema version ${found}, written by a newer opsctl; this one reads up to version ${SCHEMA_VERSION}. Upgrade opsctl, or start with another --state file`,
    )
  }

  return found
}

/** Brings a database of version `found` to SCHEMA_VERSION, in one transaction. */
export function migrate(db: Database.Database, found: number): void {
  if (found >= SCHEMA_VERSION) return
  db.transaction(() => {
    for (const sql of MIGRATIONS.slice(found)) db.exec(sql)
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`)
  })()
}
