/**
 * A loopback service that answers oddly, for the fail-closed tests: each request is answered by
 * the test's `answer` (a good answer, or one of SHAPES made from it), and every request it saw is
 * kept, so a test counts the writes (POST, DELETE, PUT) that reached it.
 */
import {createServer} from 'node:http'

import {listenOnLoopback} from './loopback-servers.js'

/** The answers a real world gives that are not the row's: each must be exit 6 and nothing taken from it. */
export const SHAPES = ['wrapped', 'redirect-302', 'redirect-307', 'cut-off', 'no-content-204', 'html', 'missing-field', 'wrong-type'] as const
export type Shape = (typeof SHAPES)[number]

export interface Answer {
  status: number
  headers?: Record<string, string>
  body?: string
  /** Close the connection instead of answering (the request was read: an answer lost). */
  hangUp?: true
}

export const JSON_TYPE = {'content-type': 'application/json'}

/** A good JSON answer. */
export function json(value: unknown, status = 200): Answer {
  return {status, headers: JSON_TYPE, body: JSON.stringify(value)}
}

const HTML = '<!doctype html><html><head><title>Sign in</title></head><body><form>Sign in to continue</form></body></html>'

/**
 * `shape` made from the good answer `good` of a row that declares `field` (in each item of a list):
 * wrapped in an object, a redirect (302 with a page, 307 with nothing), cut off half way, a 204, an
 * HTML page, the field left out, the field of another type (`wrongValue`).
 */
export function hostile(shape: Shape, good: unknown, field: string, wrongValue: unknown = 12_345): Answer {
  const text = JSON.stringify(good)
  const edited = (edit: (target: Record<string, unknown>) => void) => {
    const copy = structuredClone(good) as Record<string, unknown> | Record<string, unknown>[]
    edit(Array.isArray(copy) ? copy[0] : copy)
    return json(copy)
  }

  switch (shape) {
    case 'wrapped': {
      return json({data: good})
    }

    case 'redirect-302': {
      return {status: 302, headers: {'content-type': 'text/html', location: 'https://login.example.com/sso'}, body: HTML}
    }

    case 'redirect-307': {
      return {status: 307, headers: {location: 'https://elsewhere.example.com/v1/'}}
    }

    case 'cut-off': {
      return {status: 200, headers: JSON_TYPE, body: text.slice(0, Math.ceil(text.length / 2))}
    }

    case 'no-content-204': {
      return {status: 204}
    }

    case 'html': {
      return {status: 200, headers: {'content-type': 'text/html; charset=utf-8'}, body: HTML}
    }

    case 'missing-field': {
      return edited((target) => delete target[field])
    }

    case 'wrong-type': {
      return edited((target) => {
        target[field] = wrongValue
      })
    }
  }
}

export interface SeenRequest {
  method: string
  path: string
}

export interface HostileService {
  origin: string
  seen: SeenRequest[]
  /** The requests that would change something (anything but GET). */
  writes(): SeenRequest[]
  close(): Promise<void>
}

/** Starts the service on a free loopback port; a route `answer` leaves out is a 404. */
export async function hostileService(answer: (request: SeenRequest) => Answer | undefined): Promise<HostileService> {
  const seen: SeenRequest[] = []
  const server = createServer((req, res) => {
    const request = {method: req.method ?? '', path: req.url ?? ''}
    seen.push(request)
    req.resume()
    req.on('end', () => {
      const a = answer(request) ?? json({message: 'no such route'}, 404)
      if (a.hangUp) {
        req.socket.destroy()
        return
      }

      res.writeHead(a.status, a.headers).end(a.body)
    })
  })
  const {close, origin} = await listenOnLoopback(server)
  return {close, origin, seen, writes: () => seen.filter((r) => r.method !== 'GET')}
}
