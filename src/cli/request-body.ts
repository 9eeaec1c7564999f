import type {Operation} from '../http/operation.js'

import {UsageError} from '../errors.js'
import {describeIssues} from '../http/client.js'

/**
 * Checks a request body against its operation's schema, as the client does before sending, for
 * commands that read something first (`me` -> the user id, the current webhook): a body that
 * would be refused anyway is refused before any request, with exit 2.
 */
export function checkRequestBody(op: Operation, body: unknown): void {
  if (!op.body) return
  const parsed = op.body.safeParse(body ?? {})
  if (!parsed.success) throw new UsageError(`Invalid request: ${describeIssues(parsed.error.issues)}`)
}
