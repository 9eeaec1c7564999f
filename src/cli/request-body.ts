import type {BodyOf, Operation} from '../http/operation.js'

import {checkedBody} from '../http/client.js'

/**
 * Checks a request body against its operation's schema, as the client does before sending, for
 * commands that read something first (`me` -> the user id, the current webhook): a body that
 * would be refused anyway is refused before any request, with exit 2. A body read from the user
 * (flags, a file) has the row's type from here on.
 */
export function checkRequestBody<O extends Operation>(op: O, body: unknown): asserts body is BodyOf<O> {
  checkedBody(op, body)
}
