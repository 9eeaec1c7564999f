import {createHash, randomBytes} from 'node:crypto'

import type {Clock, Sessions} from '../types.js'

export const SESSION_COOKIE = 'connect.sid'
export const SESSION_IDLE_MS = 30 * 60 * 1000

interface SessionTable {
  /** by the SHA-256 of the session id: a Map, since the id is whatever cookie a client sends */
  sessions: Map<string, {userId: string; lastSeen: number}>
}

/** The state (and so the --state file) keeps a digest of each session id, never a cookie that would sign in. */
const keyOf = (sid: string) => createHash('sha256').update(sid).digest('base64url')

/** Opaque random session ids, expiring after 30 minutes idle on the sandbox clock. */
export function createSessions(health: () => SessionTable, clock: Clock, changed: () => void): Sessions {
  return {
    cookieHeader(sid) {
      return {'set-cookie': `${SESSION_COOKIE}=${sid}; Path=/; HttpOnly; SameSite=Lax`}
    },
    create(userId) {
      const sid = randomBytes(24).toString('base64url')
      health().sessions.set(keyOf(sid), {userId, lastSeen: clock.now().getTime()})
      changed()
      return sid
    },
    lookup(sid) {
      const table = health().sessions
      const key = keyOf(sid)
      const session = table.get(key)
      if (!session) return undefined
      const now = clock.now().getTime()
      if (now - session.lastSeen > SESSION_IDLE_MS) {
        table.delete(key)
        changed()
        return undefined
      }

      session.lastSeen = now
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
