import {afterEach, describe, expect, it, vi} from 'vitest'

import {forgetSecrets, hasSecrets, registerSecret, scrub} from '../../../src/http/secrets/registry.js'
import {registerArgv, registerBodySecrets, registerEnv, registerHeaderSecrets} from '../../../src/http/secrets/sources.js'
import {guardOutputStreams} from '../../../src/http/secrets/streams.js'

afterEach(() => forgetSecrets())

// Its base64 forms have padding and a "+": base64url and unpadded base64 differ from it and from each other.
const KEY = 'sk_live_Ab12Cd34Ef56/Gh+78~?'
const b64 = (text: string) => Buffer.from(text).toString('base64')

describe('scrub: every form a registered secret takes on the way out', () => {
  const forms: Record<string, string> = {
    raw: KEY,
    'Basic base64(key:)': b64(`${KEY}:`),
    'Basic base64(key:) unpadded': b64(`${KEY}:`).replace(/=+$/, ''),
    'base64(key)': b64(KEY),
    'base64(key) unpadded': b64(KEY).replace(/=+$/, ''),
    'base64url(key:)': Buffer.from(`${KEY}:`).toString('base64url'),
    'URL-encoded': encodeURIComponent(KEY),
    'form-encoded': new URLSearchParams({k: KEY}).toString().slice(2),
    'JSON inside JSON inside JSON': JSON.stringify(JSON.stringify(JSON.stringify({k: KEY}))),
    'escaped slashes (\\/)': KEY.replaceAll('/', String.raw`\/`),
  }
  for (const [name, form] of Object.entries(forms)) {
    it(name, () => {
      registerSecret(KEY)
      const out = scrub(`before ${form} after`)
      expect(out).toContain('[REDACTED]')
      expect(out).not.toContain(KEY)
      // Nothing of the form is left but what surrounds it: a padded form goes whole, not all but its "=".
      expect(out).not.toMatch(/\[REDACTED\]=/)
      expect(out).toMatch(/^before .*after$/)
    })
  }

  it('a password with quotes, a backslash and non-ASCII, through any number of JSON layers, ASCII-escaped or not', () => {
    const password = String.raw`pw "Pässw0rd" \ end`
    registerSecret(password)
    let text = JSON.stringify({password})
    for (let depth = 1; depth <= 4; depth++) {
      expect(scrub(text), `depth ${depth}`).not.toContain('Pässw0rd')
      const ascii = text.replaceAll(/[^\u0020-\u007E]/g, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)
      expect(scrub(ascii), `depth ${depth}, ASCII`).not.toMatch(/P(\\+u00e4)ssw0rd/)
      text = JSON.stringify({message: text})
    }
  })

  it('a password with & " \' < >, XML- and HTML-escaped as reports and pages show it', () => {
    const password = `pw&"Mk4" <q> 'x'`
    registerSecret(password)
    const xml = (quot: string, apos: string) =>
      password.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', quot).replaceAll("'", apos)
    for (const form of [xml('&quot;', '&apos;'), xml('&quot;', '&#39;'), xml('&#34;', '&#39;'), xml('&#x22;', '&#x27;'), xml('&quot;', "'"), xml('"', "'")]) {
      expect(scrub(`<testcase name="login ${form}"/>`), form).toBe('<testcase name="login [REDACTED]"/>')
    }
  })

  it('a password with a tab or an escape, as a table or an Error line shows it (escaped)', () => {
    registerSecret('pw\tTab\u001B1')
    expect(scrub(String.raw`Error: bad pw\tTab\e1 here`)).toBe('Error: bad [REDACTED] here')
  })

  it('a connect.sid session: the cookie value raw, URL-encoded and decoded', () => {
    const session = 's%3AsessCanary-123.sig%2Fx'
    registerSecret(session)
    for (const form of [session, decodeURIComponent(session), encodeURIComponent(session)]) {
      expect(scrub(`cookie: connect.sid=${form}; Path=/`)).toBe('cookie: connect.sid=[REDACTED]; Path=/')
    }
  })

  it('a card number with or without spaces or dashes, and URL-encoded spaces', () => {
    registerSecret('4000 1234 5678 9010', 'card')
    for (const form of ['4000123456789010', '4000 1234 5678 9010', '4000-1234-5678-9010', '4000%201234%205678%209010']) {
      expect(scrub(`card=${form}&x=1`)).toBe('card=[REDACTED]&x=1')
    }

    expect(scrub('last4 9010, amount 4000.12')).toBe('last4 9010, amount 4000.12')
  })

  it('a CVC only next to its name: "123" elsewhere is an amount or part of an id', () => {
    registerSecret('123', 'cvc')
    expect(scrub('cvc=123&expiry=12/29')).toBe('cvc=[REDACTED]&expiry=12/29')
    expect(scrub('{"cvc":"123"}')).toBe('{"cvc":"[REDACTED]"}')
    expect(scrub(String.raw`{\"cvc\": \"123\"}`)).toBe(String.raw`{\"cvc\": \"[REDACTED]\"}`)
    expect(scrub('refund 123.00 of chk-1234')).toBe('refund 123.00 of chk-1234')
  })

  it('with nothing registered, text comes back unchanged', () => {
    expect(hasSecrets()).toBe(false)
    expect(scrub(`Basic ${b64(`${KEY}:`)}`)).toBe(`Basic ${b64(`${KEY}:`)}`)
  })
})

describe('sources of secrets', () => {
  it('argv: secret flags in both spellings, JSON bodies, auth headers and secret query pairs; not `api --key public`', () => {
    registerArgv([
      'api',
      '--key',
      'public',
      '--password',
      'pw-One-111',
      '--card=5123 4567 8901 2346',
      '-d',
      '{"user":{"password":"pw-Two-222"},"email":"a@example.com"}',
      '-H',
      'authorization: Bearer tok-Three-333',
      '--query',
      'token=tok-Four-444',
      '--',
      '--password',
      'after-dashdash',
    ])
    const text = 'pw-One-111 5123456789012346 pw-Two-222 tok-Three-333 tok-Four-444 public a@example.com after-dashdash'
    expect(scrub(text)).toBe('[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] public a@example.com after-dashdash')
  })

  it('environment: the session and both checkout keys', () => {
    registerEnv({OPSCTL_HEALTH_SESSION: 'sess-Env-555', OPSCTL_CHECKOUT_PUBLIC_KEY: 'pk-Env-666', OPSCTL_CHECKOUT_SECRET_KEY: 'sk-Env-777'})
    expect(scrub('sess-Env-555 pk-Env-666 sk-Env-777')).toBe('[REDACTED] [REDACTED] [REDACTED]')
  })

  it('bodies: secret-named fields at any depth, never the paging token', () => {
    registerBodySecrets({card: {cardNumber: '5123456789012346', cvc: '987'}, password: 'pw-Body-888', pagingToken: 'page-2-token'})
    expect(scrub('5123 4567 8901 2346 cvc: 987 pw-Body-888 page-2-token')).toBe('[REDACTED] cvc: [REDACTED] [REDACTED] page-2-token')
  })

  it('finds a secret at any depth of a body, however deep, without recursion (a --data file 10,000 levels deep)', () => {
    let body: unknown = {password: 'pw-Deep-4242'}
    for (let i = 0; i < 10_000; i++) body = i % 2 ? {inner: body} : [body]
    expect(() => registerBodySecrets(body)).not.toThrow()
    expect(scrub('echo pw-Deep-4242')).toBe('echo [REDACTED]')
  })

  it('headers: a Basic header yields its key; Set-Cookie yields the cookie values, not the attributes', () => {
    registerHeaderSecrets({
      Authorization: `Basic ${b64('pk-Hdr-999:')}`,
      'set-cookie': ['connect.sid=s%3AcookieVal-1; Path=/; HttpOnly; SameSite=Lax'],
    })
    expect(scrub('pk-Hdr-999 s:cookieVal-1 Path=/ SameSite=Lax')).toBe('[REDACTED] [REDACTED] Path=/ SameSite=Lax')
  })
})

describe('stream guard', () => {
  it('scrubs strings and bytes written to stdout and stderr, calls the callback, and wraps only once', () => {
    const written: unknown[] = []
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(chunk)
      const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined
      cb?.()
      return true
    })
    try {
      guardOutputStreams()
      const guarded = process.stdout.write
      guardOutputStreams()
      expect(process.stdout.write).toBe(guarded)

      const bytes = Buffer.from('no secret yet\n')
      process.stdout.write(bytes)
      expect(written[0]).toBe(bytes)

      registerSecret(KEY)
      let called = false
      process.stdout.write(Buffer.from(`auth ${b64(`${KEY}:`)}\n`), () => (called = true))
      process.stdout.write(`key ${KEY}\n`)
      expect(written.slice(1)).toEqual(['auth [REDACTED]\n', 'key [REDACTED]\n'])
      expect(called).toBe(true)
      expect(out).toHaveBeenCalledTimes(3)
    } finally {
      out.mockRestore()
    }
  })
})
