import {afterAll} from 'vitest'

/** A SandboxContext for calling health handlers directly: fixed clock, in-memory sessions, counted ids. */
import type {SandboxContext, SandboxReply, SandboxRequest} from '../../src/sandbox/types.js'

import {openStore} from '../../src/sandbox/core/sqlite-store.js'
import {HealthStore} from '../../src/sandbox/health/state.js'
import {SandboxError} from '../../src/sandbox/types.js'

export type FakeContext = SandboxContext

/** The module's real repositories, on an in-memory database, as a fresh sandbox has them. */
const opened: {close(): void}[] = []
// Each test file closes the databases it opened, instead of leaving them to native finalizers at exit.
afterAll(() => {
  for (const store of opened.splice(0)) store.close()
})

async function freshHealth(): Promise<HealthStore> {
  const {store} = openStore()
  opened.push(store)
  const health = new HealthStore(store.forTenant('default'))
  await health.reset()
  return health
}

export async function fakeContext(now = '2026-03-05T04:00:00.000Z'): Promise<FakeContext> {
  let clock = new Date(now)
  let counter = 0
  const sessions = new Map<string, string>()
  const ctx: FakeContext = {
    state: {health: await freshHealth(), checkout: {} as any},
    clock: {
      now: () => new Date(clock),
      set: (iso) => (clock = new Date(iso)),
      advance: (ms) => (clock = new Date(clock.getTime() + ms)),
    },
    sessions: {
      async create(userId) {
        const sid = `sid-${++counter}`
        sessions.set(sid, userId)
        return sid
      },
      lookup: async (sid) => sessions.get(sid),
      cookieHeader: (sid) => ({'set-cookie': `connect.sid=${sid}; Path=/; HttpOnly`}),
    },
    origin: () => 'http://127.0.0.1:4010',
    id: (prefix = 'id') => `${prefix}_${++counter}`,
    apiKeyKind: () => undefined,
    callbackRefusal: () => undefined,
    hex(length) {
      return (++counter).toString(16).padStart(length, '0')
    },
    async emit() {},
    commitNow: async (change) => change(),
    schedule: async () => {},
    unschedule: async () => {},
  }
  return ctx
}

export function request(partial: Partial<SandboxRequest> = {}): SandboxRequest {
  return {params: {}, query: {}, body: undefined, headers: {}, ...partial}
}

/** The SandboxError a handler throws; fails when it answers instead. */
export async function refusal(fn: () => Promise<SandboxReply> | SandboxReply): Promise<SandboxError> {
  try {
    await fn()
  } catch (error) {
    if (error instanceof SandboxError) return error
    throw error
  }

  throw new Error('expected a SandboxError')
}
