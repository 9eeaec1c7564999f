import type {BodyOf, Operation} from '../http/operation.js'

import {UsageError} from '../errors.js'
import {describeIssues} from '../http/client.js'
import {parseOptions} from '../http/first-parse.js'

/**
 * Checks a request body against its operation's schema, as the client does before sending, for
 * commands that read something first (`me` -> the user id, the current webhook): a body that
 * would be refused anyway is refused before any request, with exit 2. A body read from the user
 * (flags, a file) has the row's type from here on.
 */
export function checkRequestBody<O extends Operation>(op: O, body: unknown): asserts body is BodyOf<O> {
  if (!op.body) return
  const parsed = op.body.safeParse(body ?? {}, parseOptions(op.body))
  if (!parsed.success) throw new UsageError(`Invalid request: ${describeIssues(parsed.error.issues)}`)
}
