/**
 * The repositories' queries (src/sandbox/core/queries.ts) compiled for each engine give the same
 * results on SQLite and on a real PostgreSQL (a throwaway cluster): upserts that keep a document's
 * place, an event replaced in place, counts, the tenants that have rows.
 */
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {openPostgres} from '../../src/sandbox/core/postgres-database.js'
import {queriesFor} from '../../src/sandbox/core/queries.js'
import {openStore} from '../../src/sandbox/core/sqlite-store.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'
import {statement} from '../helpers/sqlite.js'

const skip = postgresSkipReason()

type Run = (query: keyof ReturnType<typeof queriesFor>, ...params: unknown[]) => Promise<Record<string, unknown>[]>

/** The same script of repository calls on one engine; what each read returned. */
async function script(run: Run): Promise<unknown[]> {
  const seen: unknown[] = []
  /** a read whose rows are compared (a count is a bigint string in pg: compared as a number; row order of a UNION is not defined) */
  const read = async (query: Parameters<Run>[0], ...params: unknown[]) => {
    const rows = (await run(query, ...params)).map((row) => (row.n === undefined ? row : {...row, n: Number(row.n)}))
    seen.push(query === 'tenantsWithRows' ? rows.map((row) => String(row.tenant)).sort() : rows)
  }

  await run('putDoc', 't1', 'c', 'b', '{"v":1}')
  await run('putDoc', 't1', 'c', 'a', '{"v":2}')
  await run('putDoc', 't1', 'c', 'b', '{"v":3}')
  await run('putDoc', 't2', 'c', 'z', '{}')
  await read('listDocs', 't1', 'c')
  await read('getDoc', 't1', 'c', 'b')
  await read('hasDoc', 't2', 'c', 'b')
  await read('countDocs', 't1', 'c')
  const event = (id: string, date: string, doc: string) => ['t1', 'u', id, date, 'rescue', null, 'sensor', null, 0, 1, doc]
  await run('putEvent', ...event('e1', '2024-01-02', '{"id":"e1"}'))
  await run('putEvent', ...event('e2', '2024-01-03', '{"id":"e2"}'))
  await run('putEvent', ...event('e1', '2024-01-04', '{"id":"e1","again":true}'))
  await read('eventsByUser', 't1')
  await read('eventsBetween', 't1', 'u', '2024-01-01', '2024-01-03')
  await read('countEvents', 't1', 'u')
  await read('tenantsWithRows')
  await run('deleteEvent', 't1', 'u', 'e2')
  await run('deleteDoc', 't1', 'c', 'a')
  await read('getEvent', 't1', 'u', 'e2')
  await read('listDocs', 't1', 'c')
  await run('dropTenantDocs', 't1')
  await run('dropTenantEvents', 't1')
  await read('tenantsWithRows')
  // the delivery log keeps a tenant's newest attempts, and only its own are trimmed
  for (let i = 1; i <= 5; i++) await run('addAttempt', 't3', 'd1', 'chk', `{"attempt":${i}}`)
  await run('addAttempt', 't4', 'd2', 'chk', '{"attempt":1}')
  await run('trimAttempts', 't3', 't3', 1, 2)
  await read('listAttempts', 't3')
  await read('checkoutAttempts', 't4', 'chk')
  // due work falls due in order, and a clock move shifts it
  await run('addDelivery', 't5', 'later', '{"n":2}', 2000)
  await run('addDelivery', 't5', 'sooner', '{"n":1}', 1000)
  await run('addDelivery', 't5', 'now', '{"n":0}', null)
  await read('claimDue', 99, 0, 1500, 10)
  await run('shiftDue', 1000, 't5')
  await read('claimDue', 99, 0, 1500, 10)
  return seen
}

describe.skipIf(skip !== undefined)(`the repositories' queries on both engines${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: PostgresCluster
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('give the same results on SQLite and PostgreSQL', async () => {
    const {store} = openStore()
    const sqliteQueries = queriesFor('sqlite')
    const onSqlite = await script(async (query, ...params) => {
      const prepared = statement(store.db, sqliteQueries[query])
      return prepared.reader ? (prepared.all(...params) as Record<string, unknown>[]) : (prepared.run(...params), [])
    })
    store.close()

    const opened = await openPostgres(cluster.url)
    await opened.close()
    const client = new pg.Client({connectionString: cluster.url})
    await client.connect()
    try {
      const postgresQueries = queriesFor('postgres')
      const onPostgres = await script(async (query, ...params) => (await client.query(postgresQueries[query], params)).rows)
      expect(onPostgres).toEqual(onSqlite)
      expect(onSqlite[0]).toEqual([
        {doc: '{"v":3}', key: 'b'},
        {doc: '{"v":2}', key: 'a'},
      ])
      const [attempts, others, dueFirst, dueAfterShift] = onSqlite.slice(-4) as {doc?: string; id?: string}[][]
      expect(attempts.map((row) => row.doc)).toEqual(['{"attempt":4}', '{"attempt":5}'])
      expect(others).toHaveLength(1)
      expect(dueFirst.map((row) => row.id).sort()).toEqual(['now', 'sooner'])
      expect(dueAfterShift.map((row) => row.id)).toEqual(['later'])
    } finally {
      await client.end()
    }
  })
})
