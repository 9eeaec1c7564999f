/**
 * The repositories' queries (store.ts, health/event-store.ts), written once with Kysely's query
 * builder and compiled for an engine: SQLite's texts are prepared once each and run
 * synchronously by better-sqlite3 (as fast as hand-written SQL), PostgreSQL's run through `pg`.
 * Each is compiled with placeholder values: its parameters are the arguments listed beside it, in
 * that order.
 */
import {sql} from 'kysely'

import {compilerFor, type Engine} from './schema.js'

/** A placeholder value: queries are compiled once, their parameters given when they run. */
const P = '' as string
const N = 0 as number

/** (lapsedBefore, now, limit): the rows due now that nobody holds, in the order they fell due; on PostgreSQL, rows another replica is claiming right now are skipped, not waited for. */
function claimable(db: ReturnType<typeof compilerFor>, engine: Engine) {
  const due = db
    .selectFrom('deliveries')
    .select('seq')
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', N)]))
    .where((eb) => eb.or([eb('due_at', 'is', null), eb('due_at', '<=', N)]))
    .orderBy(sql`coalesce(due_at, 0)`)
    .orderBy('seq')
    .limit(N)
  return engine === 'postgres' ? due.forUpdate().skipLocked() : due
}

function compile(engine: Engine) {
  const db = compilerFor(engine)
  const collection = db
    .selectFrom('documents')
    .where('tenant', '=', P)
    .where('collection', '=', P)
  return {
    /** (tenant, collection) -> {n} */
    countDocs: collection.select((eb) => eb.fn.countAll().as('n')).compile().sql,
    /** (tenant, collection) */
    clearDocs: db.deleteFrom('documents').where('tenant', '=', P).where('collection', '=', P).compile().sql,
    /** (tenant, collection, key) */
    deleteDoc: db.deleteFrom('documents').where('tenant', '=', P).where('collection', '=', P).where('key', '=', P).compile().sql,
    /** (tenant, collection) -> {key, doc}, in insertion order */
    listDocs: collection.select(['key', 'doc']).orderBy('seq').compile().sql,
    /** (tenant, collection, key) -> {doc} */
    getDoc: collection.select('doc').where('key', '=', P).compile().sql,
    /** (tenant, collection, key) -> {one} */
    hasDoc: collection.select((eb) => eb.lit(1).as('one')).where('key', '=', P).compile().sql,
    /** (tenant, collection, key, doc): a replaced document keeps its place in the order */
    putDoc: db
      .insertInto('documents')
      .values({tenant: P, collection: P, key: P, doc: P})
      .onConflict((oc) => oc.columns(['tenant', 'collection', 'key']).doUpdateSet((eb) => ({doc: eb.ref('excluded.doc')})))
      .compile().sql,
    /** (tenant, collection, tenant, collection, 1, keep): drops all but the collection's `keep` newest documents */
    trimDocs: db
      .deleteFrom('documents')
      .where('tenant', '=', P)
      .where('collection', '=', P)
      .where('seq', '<=', db.selectFrom('documents').select('seq').where('tenant', '=', P).where('collection', '=', P).orderBy('seq', 'desc').limit(1).offset(N))
      .compile().sql,
    /** () -> {tenant} */
    tenantsWithRows: db
      .selectFrom('documents')
      .select('tenant')
      .union(db.selectFrom('events').select('tenant'))
      .union(db.selectFrom('deliveries').select('tenant'))
      .union(db.selectFrom('delivery_attempts').select('tenant'))
      .compile().sql,
    /** (tenant) */
    dropTenantDeliveries: db.deleteFrom('deliveries').where('tenant', '=', P).compile().sql,
    /** (tenant, id, doc, due_at) */
    addDelivery: db.insertInto('deliveries').values({tenant: P, id: P, doc: P, due_at: N}).compile().sql,
    /** (doc, due_at, tenant, id): a failed delivery's next attempt, unclaimed */
    rescheduleDelivery: db.updateTable('deliveries').set({doc: P, due_at: N, claimed_until: sql<null>`null`}).where('tenant', '=', P).where('id', '=', P).compile().sql,
    /** (shift, tenant): the tenant's clock moved by `shift` ms; what falls due falls due that much sooner in real time */
    shiftDue: db
      .updateTable('deliveries')
      .set((eb) => ({due_at: eb('due_at', '-', N)}))
      .where('tenant', '=', P)
      .where('due_at', 'is not', null)
      .compile().sql,
    /** (tenant, delivery_id, checkout_id, doc) */
    addAttempt: db.insertInto('delivery_attempts').values({tenant: P, delivery_id: P, checkout_id: P, doc: P}).compile().sql,
    /** (tenant, tenant, 1, keep): drops all but the tenant's `keep` newest attempts */
    trimAttempts: db
      .deleteFrom('delivery_attempts')
      .where('tenant', '=', P)
      .where('seq', '<=', db.selectFrom('delivery_attempts').select('seq').where('tenant', '=', P).orderBy('seq', 'desc').limit(N).offset(N))
      .compile().sql,
    /** (tenant) -> {doc}, in the order they were made */
    listAttempts: db.selectFrom('delivery_attempts').select('doc').where('tenant', '=', P).orderBy('seq').compile().sql,
    /** (tenant, checkout_id) -> {doc} */
    checkoutAttempts: db.selectFrom('delivery_attempts').select('doc').where('tenant', '=', P).where('checkout_id', '=', P).orderBy('seq').compile().sql,
    /** (tenant, delivery_id) -> {doc} */
    deliveryAttempts: db.selectFrom('delivery_attempts').select('doc').where('tenant', '=', P).where('delivery_id', '=', P).orderBy('seq').compile().sql,
    /** (tenant) */
    dropTenantAttempts: db.deleteFrom('delivery_attempts').where('tenant', '=', P).compile().sql,
    /** (tenant, id) */
    deleteDelivery: db.deleteFrom('deliveries').where('tenant', '=', P).where('id', '=', P).compile().sql,
    /** (until, tenant, id, now, now) -> {doc}: claims one delivery that is due unless another process holds an unexpired claim on it */
    claimDelivery: db
      .updateTable('deliveries')
      .set({claimed_until: N})
      .where('tenant', '=', P)
      .where('id', '=', P)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', N)]))
      .where((eb) => eb.or([eb('due_at', 'is', null), eb('due_at', '<=', N)]))
      .returning('doc')
      .compile().sql,
    /** (until, tenant, id): the claimer is still delivering it */
    renewClaim: db.updateTable('deliveries').set({claimed_until: N}).where('tenant', '=', P).where('id', '=', P).compile().sql,
    /** (until, lapsedBefore, now, limit) -> {tenant, id, doc}: claims due rows nobody holds (never claimed, or their claimer's claim lapsed) */
    claimDue: db
      .updateTable('deliveries')
      .set({claimed_until: N})
      .where('seq', 'in', claimable(db, engine))
      .returning(['tenant', 'id', 'doc'])
      .compile().sql,
    /** (tenant) */
    dropTenantDocs: db.deleteFrom('documents').where('tenant', '=', P).compile().sql,
    /** (tenant) */
    dropTenantEvents: db.deleteFrom('events').where('tenant', '=', P).compile().sql,
    /** (tenant, user, start, end) -> {doc} */
    eventsBetween: db
      .selectFrom('events')
      .select('doc')
      .where('tenant', '=', P)
      .where('user_id', '=', P)
      .where('date', '>=', P)
      .where('date', '<=', P)
      .compile().sql,
    /** (tenant) -> {user_id, doc}, newest first per user */
    eventsByUser: db
      .selectFrom('events')
      .select(['user_id', 'doc'])
      .where('tenant', '=', P)
      .orderBy('user_id')
      .orderBy('date', 'desc')
      .orderBy('id', 'desc')
      .compile().sql,
    /** (tenant, user) -> {n} */
    countEvents: db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('tenant', '=', P)
      .where('user_id', '=', P)
      .compile().sql,
    /** (tenant, user, id) */
    deleteEvent: db.deleteFrom('events').where('tenant', '=', P).where('user_id', '=', P).where('id', '=', P).compile().sql,
    /** (tenant, user, id) -> {doc} */
    getEvent: db.selectFrom('events').select('doc').where('tenant', '=', P).where('user_id', '=', P).where('id', '=', P).compile().sql,
    /** (tenant, user_id, id, date, medication_type, medication_id, source, night_event, preemptive, address_confirmed, doc): adds or replaces */
    putEvent: db
      .insertInto('events')
      .values({
        tenant: P,
        user_id: P,
        id: P,
        date: P,
        medication_type: P,
        medication_id: P,
        source: P,
        night_event: N,
        preemptive: N,
        address_confirmed: N,
        doc: P,
      })
      .onConflict((oc) =>
        oc.columns(['tenant', 'user_id', 'id']).doUpdateSet((eb) => ({
          address_confirmed: eb.ref('excluded.address_confirmed'),
          date: eb.ref('excluded.date'),
          doc: eb.ref('excluded.doc'),
          medication_id: eb.ref('excluded.medication_id'),
          medication_type: eb.ref('excluded.medication_type'),
          night_event: eb.ref('excluded.night_event'),
          preemptive: eb.ref('excluded.preemptive'),
          source: eb.ref('excluded.source'),
        })),
      )
      .compile().sql,
  }
}

export type Queries = ReturnType<typeof compile>

const compiled = new Map<Engine, Queries>()

/** The queries in an engine's dialect (compiled on first use). */
export function queriesFor(engine: Engine): Queries {
  let queries = compiled.get(engine)
  if (!queries) compiled.set(engine, (queries = compile(engine)))
  return queries
}
