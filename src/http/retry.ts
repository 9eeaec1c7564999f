import type {RetryPolicy} from './transport.js'

import {failureCode} from './network-error.js'

export type {RetryPolicy} from './transport.js'

/** A policy and what it retries: these answer statuses and these failure codes (`failureCode`). */
export interface RetryRules extends RetryPolicy {
  statusCodes: number[]
  errorCodes: string[]
}

/** What a failed attempt was: an answer's status (and its Retry-After), or a failure's code. */
export interface AttemptFailure {
  code?: string
  status?: number
  retryAfter?: string | string[]
}

/**
 * The wait before retry number `retry` (1 for the first), or undefined when there is none: the
 * rules undici's retry interceptor applied for opsctl (a status or failure code in the lists,
 * attempts left, `Retry-After` in seconds or as an HTTP date, else exponential backoff from
 * `minTimeoutMs`, at most `maxTimeoutMs`), plus one: a wait that would end after the call's
 * deadline is not started. The caller gets the last answer at once instead of a timer that
 * outlives the command.
 */
export function retryWait(failure: AttemptFailure, retry: number, rules: RetryRules, deadline: number): number | undefined {
  const retryable =
    failure.status === undefined ? failure.code !== undefined && rules.errorCodes.includes(failure.code) : rules.statusCodes.includes(failure.status)
  if (!retryable || retry > rules.maxRetries) return undefined
  const wait = Math.min(retryAfterMs(failure.retryAfter) ?? rules.minTimeoutMs * 2 ** (retry - 1), rules.maxTimeoutMs)
  return Date.now() + wait >= deadline ? undefined : wait
}

/**
 * Runs `attempt` until it gives an answer that is not retried, or fails in a way that is not:
 * then that answer is returned (a 503 after the last retry is an answer) or that failure thrown.
 * Both carriers (node:http, undici) are retried through this one loop: undici's retry interceptor
 * needs a Dispatcher, and plain http never loads undici.
 */
export async function withRetries<A extends {status: number; headers: Record<string, string | string[] | undefined>}>(
  attempt: () => Promise<A>,
  rules: RetryRules,
  deadline: number,
  onRetry?: (failure: {code?: string; status?: number; waitMs: number}) => void,
): Promise<A> {
  for (let retry = 1; ; retry++) {

    const outcome = await attempt().then(
      (answer) => ({answer}),
      (error: unknown) => ({error}),
    )
    const failure: AttemptFailure =
      'answer' in outcome ? {retryAfter: outcome.answer.headers['retry-after'], status: outcome.answer.status} : {code: failureCode(outcome.error)}
    const wait = retryWait(failure, retry, rules, deadline)
    if (wait === undefined) {
      if ('answer' in outcome) return outcome.answer
      throw outcome.error
    }

    onRetry?.({code: failure.code, status: failure.status, waitMs: wait})

    await new Promise((resolve) => {
      setTimeout(resolve, wait)
    })
  }
}

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (!value) return undefined
  const seconds = Number(value)
  const ms = Number.isNaN(seconds) ? new Date(value).getTime() - Date.now() : seconds * 1000
  return Number.isFinite(ms) && ms > 0 ? ms : undefined
}
