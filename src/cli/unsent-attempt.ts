/**
 * The audit line of an attempt that ended before its request was sent: the log records every
 * attempt at an audited change (docs/merchant-history.md), not only those that reached the service.
 */
import type {AttemptRecord} from '../services/change.js'

import {ApiError, DeclinedError, ExitCode, type OpsError} from '../errors.js'
import {type Operation, pathParams} from '../http/operation.js'
import {ConsentRequiredError} from './consent.js'

/** What is copied from the command line: ids, and the reason and amount as typed (shortened: they may be what was refused). */
const TYPED_LIMIT = 200

function typed(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, TYPED_LIMIT) : undefined
}

/**
 * - `refused locally`: opsctl refused the command (exit 2): bad input (`invalid-input`), or a
 *   destructive change without --yes and without a terminal (`consent-required`);
 * - `declined` at a prompt that did not reach the client;
 * - `not sent`: something before it failed (a read of the checkout answered 404, say): its code,
 *   or `earlier-step-failed`.
 */
export function unsentAttempt(operation: Operation, error: OpsError, args: Record<string, unknown>, flags: Record<string, unknown>): AttemptRecord {
  const base = {
    body: {amount: typed(flags.amount) ? {value: typed(flags.amount)} : undefined, reason: typed(flags.reason)},
    message: error.message.slice(0, TYPED_LIMIT * 2),
    operation,
    // the row's path parameters, as the command's arguments of the same names typed them
    params: Object.fromEntries(pathParams(operation.path).map((name) => [name, typed(args[name])])),
  }
  if (error instanceof DeclinedError) return {...base, outcome: 'declined'}
  if (error instanceof ConsentRequiredError) return {...base, code: 'consent-required', outcome: 'refused locally'}
  if (error.exitCode === ExitCode.Usage) return {...base, code: 'invalid-input', outcome: 'refused locally'}
  if (error instanceof ApiError) return {...base, code: error.code ?? 'earlier-step-failed', outcome: 'not sent', status: error.status}
  return {...base, code: 'earlier-step-failed', outcome: 'not sent'}
}
