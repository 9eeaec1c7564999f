import type {RetryHandler} from 'undici'

export interface RetryPolicy {
  maxRetries: number
  minTimeoutMs: number
  maxTimeoutMs: number
}

/**
 * The decision undici's retry interceptor asks for before each new attempt. Same rules as undici's
 * default (retryable status or error code, attempts left, `Retry-After` in seconds or as an HTTP
 * date, else exponential backoff), plus one: a wait that would end after the call's deadline is
 * not started. The caller gets the last answer at once instead of a timer that outlives the
 * command (undici's timer is not cancelled by the abort signal, so the process stayed alive until a
 * long `Retry-After` ran out, long after the timeout error was printed).
 */
export function retryWithin(
  deadline: number,
  policy: RetryPolicy,
  statusCodes: number[],
  errorCodes: string[],
  onRetry?: (failure: {code?: string; status?: number; waitMs: number}) => void,
): RetryHandler.RetryCallback {
  return (err, {state}, next) => {
    const {code, headers, statusCode} = err as Error & {code?: string; headers?: Record<string, string | string[]>; statusCode?: number}
    // As undici decides: a status outside the list, an error code outside the list, or no attempts left ends it.
    const refused =
      (code !== undefined && code !== 'UND_ERR_REQ_RETRY' && !errorCodes.includes(code)) ||
      (statusCode !== undefined && !statusCodes.includes(statusCode))
    if (refused || state.counter > policy.maxRetries) {
      next(err)
      return
    }

    const wait = Math.min(retryAfterMs(headers?.['retry-after']) ?? policy.minTimeoutMs * 2 ** (state.counter - 1), policy.maxTimeoutMs)
    if (Date.now() + wait >= deadline) {
      next(err)
      return
    }

    onRetry?.({code, status: statusCode, waitMs: wait})
    setTimeout(() => next(null), wait)
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
