import pRetry from 'p-retry'

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

/** A retryable answer (a 503, a 429) thrown inside p-retry, so that it counts as a failed attempt. */
class RetryableAnswer<A> extends Error {
  constructor(readonly answer: A) {
    super('retryable answer')
  }
}

/**
 * Runs `attempt` until it gives an answer that is not retried, or fails in a way that is not:
 * then that answer is returned (a 503 after the last retry is an answer) or that failure thrown.
 * p-retry drives the attempts; the wait before each retry is `retryWait`'s (Retry-After, else
 * backoff, never past the deadline), so p-retry's own backoff is off. Both carriers (node:http,
 * undici) go through here: undici's retry interceptor needs a Dispatcher, and plain http never
 * loads undici.
 */
export async function withRetries<A extends {status: number; headers: Record<string, string | string[] | undefined>}>(
  attempt: () => Promise<A>,
  rules: RetryRules,
  deadline: number,
  onRetry?: (failure: {code?: string; status?: number; waitMs: number}) => void,
): Promise<A> {
  let retrying = false
  try {
    return await pRetry(
      async () => {
        const answer = await attempt()
        if (rules.statusCodes.includes(answer.status)) throw new RetryableAnswer(answer)
        return answer
      },
      {
        minTimeout: 0,
        async onFailedAttempt({attemptNumber, error}) {
          const failure: AttemptFailure =
            error instanceof RetryableAnswer
              ? {retryAfter: error.answer.headers['retry-after'], status: error.answer.status}
              : {code: failureCode(error)}
          const wait = retryWait(failure, attemptNumber, rules, deadline)
          retrying = wait !== undefined
          if (wait === undefined) return
          onRetry?.({code: failure.code, status: failure.status, waitMs: wait})
          await new Promise((resolve) => {
            setTimeout(resolve, wait)
          })
        },
        retries: rules.maxRetries,
        shouldRetry: () => retrying,
      },
    )
  } catch (error) {
    if (error instanceof RetryableAnswer) return error.answer as A
    throw error
  }
}

/** A `Retry-After` header (seconds or an HTTP date) in milliseconds from now; undefined when it says nothing usable. */
export function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (!value) return undefined
  const seconds = Number(value)
  const ms = Number.isNaN(seconds) ? new Date(value).getTime() - Date.now() : seconds * 1000
  return Number.isFinite(ms) && ms > 0 ? ms : undefined
}
