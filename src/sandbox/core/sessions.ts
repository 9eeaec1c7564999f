import {createHash, randomBytes} from 'node:crypto'

import type {Clock, Sessions} from '../types.js'

export const SESSION_COOKIE = 'connect.sid'
export const SESSION_IDLE_MS = 30 * 60 * 1000

/** The sessions table: by the SHA-256 of the session id (a keyed table, since the id is whatever cookie a client sends). */
interface SessionTable {
  /** every session: an imported state signs no one in (state-routes.ts) */
  clear(): Promise<void>
  delete(key: string): Promise<boolean>
  get(key: string): Promise<undefined | {lastSeen: number; userId: string}>
  set(key: string, session: {lastSeen: number; userId: string}): Promise<void>
}

/** The state (and so the --state file) keeps a digest of each session id, never a cookie that would sign in. */
const digestOf = (sid: string) => createHash('sha256').update(sid).digest('base64url')

/** Digests of the session ids seen lately (in memory only), so a signed-in client's every request does not hash again. */
const DIGESTS_KEPT = 10_000
/** One memo for every tenant's sessions (a digest depends on the id alone), so tenants do not multiply its bound. */
const digests = new Map<string, string>()

/**
 * A read does not write to the database for each touch of a session: the last use is kept in
 * memory, and stored when it has moved by this much (so after a restart a session may expire up
 * to this much early, never late).
 */
const TOUCH_SAVE_MS = 60_000

/** The key a session is stored under in its table: the digest of its id. */
export function sessionKey(sid: string): string {
  let key = digests.get(sid)
  if (key === undefined) {
    key = digestOf(sid)
    if (digests.size >= DIGESTS_KEPT) digests.clear()
    digests.set(sid, key)
  }

  return key
}

/** Opaque random session ids, expiring after 30 minutes idle on the sandbox clock. */
export function createSessions(table: () => SessionTable, clock: Clock): Sessions {
  const lastSeen = new Map<string, number>()

  return {
    cookieHeader(sid) {
      return {'set-cookie': `${SESSION_COOKIE}=${sid}; Path=/; HttpOnly; SameSite=Lax`}
    },
    async create(userId) {
      const sid = randomBytes(24).toString('base64url')
      const now = clock.now().getTime()
      await table().set(sessionKey(sid), {userId, lastSeen: now})
      lastSeen.set(sessionKey(sid), now)
      return sid
    },
    async lookup(sid) {
      const key = sessionKey(sid)
      const session = await table().get(key)
      if (!session) {
        lastSeen.delete(key)
        return undefined
      }

      const now = clock.now().getTime()
      if (now - Math.max(session.lastSeen, lastSeen.get(key) ?? 0) > SESSION_IDLE_MS) {
        await table().delete(key)
        lastSeen.delete(key)
        return undefined
      }

      lastSeen.set(key, now)
      if (Math.abs(now - session.lastSeen) >= TOUCH_SAVE_MS) await table().set(key, {...session, lastSeen: now})
      return session.userId
    },
  }
}

/** The value of one cookie in a `cookie` header, URL-decoded. */
export function readCookie(header: string | string[] | undefined, name: string): string | undefined {
  const text = Array.isArray(header) ? header.join('; ') : header
  if (!text) return undefined
  for (const part of text.split(';')) {
    const i = part.indexOf('=')
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim())
      } catch {
        return part.slice(i + 1).trim()
      }
    }
  }

  return undefined
}
