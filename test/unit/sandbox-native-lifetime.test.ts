/**
 * On Node 24, better-sqlite3 12 aborts the process when V8 collects one of its objects outside a
 * Node context (src/sandbox/core/native-lifetime.ts). So the sandbox's state lets none be collected:
 * every database, statement and iterator it creates survives a full GC, after its store is closed too.
 * This fails on any Node when a new prepare, pragma or iterate is not kept. It runs where the sandbox
 * uses better-sqlite3 (Node 20; node:sqlite's objects are not ObjectWrap-based).
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {HealthStore} from '../../src/sandbox/health/state.js'

import {sqliteEngine} from '../../src/sandbox/core/sqlite-driver.js'
import {dumpState, loadState, openState} from '../../src/sandbox/core/state.js'
import {sandboxModules} from '../../src/sandbox/modules.js'
import {openDatabase, statement} from '../helpers/sqlite.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

type Method = (this: object, ...args: unknown[]) => unknown

/**
 * Every native object better-sqlite3 creates from now on (each statement from prepare, pragma and
 * transaction goes through the native database's prepare; iterators through the statement's iterate).
 */
function recordNativeObjects(): {created: {ref: WeakRef<object>; what: string}[]; stop(): void} {
  const probe = openDatabase(':memory:')
  // the JS Database holds the native one under a private symbol
  const native = Object.getOwnPropertySymbols(probe).map((s) => (probe as unknown as Record<symbol, {prepare?: unknown}>)[s])
  const nativeDb = Object.getPrototypeOf(native.find((value) => typeof value?.prepare === 'function'))
  const nativeStatement = Object.getPrototypeOf(statement(probe, 'SELECT 1'))
  const created: {ref: WeakRef<object>; what: string}[] = []
  const seen = new WeakSet<object>()
  const record = (object: object, what: string) => {
    if (!seen.has(object)) created.push({ref: new WeakRef(object), what})
    seen.add(object)
  }

  const wrap = (proto: Record<string, Method>, name: 'iterate' | 'prepare') => {
    const original = proto[name]
    proto[name] = function (...args) {
      const made = original.apply(this, args) as object
      if (name === 'prepare') {
        record(this, 'a database')
        record(made, `the statement ${args[0]}`)
      } else record(made, `an iterator of ${(this as {source: string}).source}`)
      return made
    }

    return () => {
      proto[name] = original
    }
  }

  const restore = [wrap(nativeDb, 'prepare'), wrap(nativeStatement, 'iterate')]
  return {created, stop: () => restore.forEach((r) => r())}
}

let dir: string
let recorder: ReturnType<typeof recordNativeObjects> | undefined
const onBetterSqlite3 = sqliteEngine() === 'better-sqlite3'

const event = (id: string, date: string) => ({id, date, medicationType: 'rescue', preemptive: false, addressConfirmed: true})

/** Opens a state, imports events (a savepoint), reads a page, exports (an iterator) and closes it. */
async function useAndClose(file?: string): Promise<void> {
  const state = await openState(sandboxModules, {file, notice() {}})
  const health = state.modules.get('health') as HealthStore
  await loadState(state.store, state.modules, {
    version: 2,
    health: {events: [['u1', [event('e1', '2024-01-01T00:00:00.000Z'), event('e2', '2024-01-02T00:00:00.000Z')]]]},
  })
  state.store.commit()
  expect((await health.events.page('u1', {medicationType: 'rescue'}, 1)).paging.next).toBeDefined()
  expect((await dumpState(state.modules)).health).toMatchObject({events: [['u1', [{id: 'e2'}, {id: 'e1'}]]]})
  state.store.close()
}

describe.runIf(onBetterSqlite3)('the sandbox state on better-sqlite3', () => {
  // Inside the suite: where it does not run (node:sqlite), vitest runs a file-level beforeAll but not its afterAll, and the folder stayed behind.
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsctl-native-'))
    recorder = recordNativeObjects()
  })
  afterAll(() => {
    recorder?.stop()
    rmSync(dir, {force: true, recursive: true})
  })

  it('keeps every better-sqlite3 object the sandbox state creates, after its store is closed', async () => {
    const file = join(dir, 'state.db')
    // a new file, the same file again (no migration), in memory
    await useAndClose(file)
    await useAndClose(file)
    await useAndClose()
    const control = new WeakRef({})
    // a WeakRef's target is held until the current job ends
    await new Promise((resolve) => {
      setImmediate(resolve)
    })
    gc()

    expect(control.deref()).toBeUndefined()
    // databases, statements (pragma, repositories, transaction), iterators
    const created = recorder?.created ?? []
    expect(created.length).toBeGreaterThan(20)
    expect(created.filter(({ref}) => ref.deref() === undefined).map(({what}) => what)).toEqual([])
  })
})
