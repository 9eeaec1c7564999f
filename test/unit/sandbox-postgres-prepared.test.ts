/**
 * A batch's statements run ones prepared on their connection (`PREPARE` the first time, then
 * `EXECUTE`; postgres-store.ts): the store must know what its connection has prepared whatever
 * happened there. On one connection (a pool of one), a transaction rolled back, and a batch that
 * failed halfway through its preparing, leave the next request's writes working.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {openPostgres} from '../../src/sandbox/core/postgres-database.js'
import {PostgresStore} from '../../src/sandbox/core/postgres-store.js'
import {queriesFor} from '../../src/sandbox/core/queries.js'
import {type PostgresCluster, postgresSkipReason, startPostgres} from '../helpers/postgres.js'

const skip = postgresSkipReason()
const Q = queriesFor('postgres')

describe.skipIf(skip !== undefined)(`statements prepared on a connection${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let cluster: PostgresCluster
  let store: PostgresStore
  beforeAll(async () => {
    cluster = await startPostgres()
    const opened = await openPostgres(cluster.url, {max: 1})
    store = new PostgresStore(opened.pool, opened.close)
  }, 60_000)
  afterAll(async () => {
    await store?.close()
    await cluster?.stop()
  })

  const request = <T>(work: () => Promise<T>) => store.within(store.newScope(), work)
  const put = (key: string) => store.changeLater(Q.putDoc, 'prepared', 'docs', key, JSON.stringify({key}))
  const keys = async () => (await store.rows<{key: string}>(Q.listDocs, 'prepared', 'docs')).map((row) => row.key)

  it('writes after a transaction rolled back, and after a batch that failed before all its statements were prepared', async () => {
    // prepared, sent, then rolled back
    await request(async () => {
      await put('rolled-back')
      expect(await store.rows(Q.listDocs, 'prepared', 'docs')).toHaveLength(1)
      await store.discard()
    })
    await request(async () => {
      await put('first')
      await store.commit()
    })
    // a statement PostgreSQL refuses to prepare comes first: the ones after it in the batch are not prepared
    await request(async () => {
      await store.changeLater('SELECT no_such_column FROM documents WHERE tenant = $1', 'prepared')
      await expect(store.change('DELETE FROM documents WHERE tenant = $1 AND key = $2', 'prepared', 'first')).rejects.toThrow(/no_such_column/)
      await store.discard()
    })
    await request(async () => {
      await store.changeLater('DELETE FROM documents WHERE tenant = $1 AND key = $2', 'prepared', 'nothing')
      await put('second')
      await store.commit()
    })
    expect(await request(keys)).toEqual(['first', 'second'])
  })
})
