/**
 * The bodies the sandbox reads: JSON (fastify's own parser, with the sandbox's refusals) and the
 * urlencoded forms of the hosted payment page.
 */
import type {FastifyInstance} from 'fastify'

import {nestsDeeperThan, SANDBOX_BODY_MAX_DEPTH} from '../../services/sandbox-defaults.js'

/** Body keys that would reach an object's prototype if a parser let them through. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * A NUL character in a body: no field takes one, and PostgreSQL refuses it in a text column, so it
 * is refused as the body is parsed, on both engines. In JSON it can only be the escape `\u0000`
 * (a raw control character is not valid JSON); one preceded by an odd number of backslashes is text.
 */
const JSON_NUL = /(?<!\\)(?:\\\\)*\\u0000/i
const NUL_REFUSAL = 'The body holds a NUL character (\\u0000), which no field accepts'

function badBody(message: string): Error {
  return Object.assign(new Error(message), {statusCode: 400})
}

/**
 * Real clients send JSON with a charset parameter, an empty body with a JSON content type, or a
 * `{}` body on GET and DELETE: all are accepted. JSON goes through fastify's own parser
 * (secure-json-parse), which refuses `__proto__` and `constructor.prototype` keys at any depth.
 * HTML forms (the hosted payment page) post urlencoded bodies: they become null-prototype
 * records, and a field named like a prototype key is refused.
 */
export function registerParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json/, {parseAs: 'string'}, (request, text, done) => {
    const body = String(text)
    if (body.trim() === '') return done(null, undefined)
    if (JSON_NUL.test(body)) return done(badBody(NUL_REFUSAL), undefined)
    parseJson(request, body, (error, parsed) => {
      // before anything walks it: validation, the handlers, JSON.stringify and the redaction walks recurse
      if (!error && nestsDeeperThan(parsed, SANDBOX_BODY_MAX_DEPTH))
        return done(badBody(`The body is nested deeper than ${SANDBOX_BODY_MAX_DEPTH} levels`), undefined)
      if (!error) return done(null, parsed)
      let wellFormed = true
      try {
        JSON.parse(body)
      } catch {
        wellFormed = false
      }

      done(
        badBody(wellFormed ? 'The body has a forbidden key (__proto__ or constructor.prototype)' : 'The body is not valid JSON'),
        undefined,
      )
    })
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', {parseAs: 'string'}, (_request, text, done) => {
    const form: Record<string, string> = Object.create(null)
    for (const [key, value] of new URLSearchParams(String(text))) {
      if (PROTOTYPE_KEYS.has(key)) return done(badBody(`The form has a forbidden field name: ${key}`), undefined)
      if (key.includes('\u0000') || value.includes('\u0000')) return done(badBody(NUL_REFUSAL), undefined)
      form[key] = value
    }

    done(null, form)
  })
}
