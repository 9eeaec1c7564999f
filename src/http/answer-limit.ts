/**
 * Every answer is read up to a limit in bytes, counted as the bytes arrive: a carrier stops
 * reading and drops the connection once an answer passes it (or announces, by its
 * content-length, that it will), so an endless or huge body costs at most the limit in memory.
 * The limit is --max-body (OPSCTL_MAX_BODY) in MiB; a request may carry its own (a sandbox's
 * whole state).
 */
import {ExitCode, MIB, OpsError, sizeText} from '../errors.js'

/**
 * 16 MiB: the largest answer either service's spec describes is a page of 50 events or a list of
 * webhooks, tens of KiB, so this is hundreds of times what a real answer needs, while a parsed
 * 16 MiB JSON answer stays near a hundred MB of memory.
 */
export const DEFAULT_MAX_BODY_MIB = 16
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_MAX_BODY_MIB * MIB

/** The code a carrier gives the error of an answer over the limit (spelt again in the lazily loaded carriers). */
export const ANSWER_TOO_LARGE = 'ERR_ANSWER_TOO_LARGE'

/**
 * An answer larger than the limit: it was not read (exit 6, an answer that cannot be read). A
 * change that got it may have been applied; the message says so.
 */
export class AnswerTooLargeError extends OpsError {
  /** What happened, without what it may mean for a change. */
  readonly notRead: string

  constructor(
    readonly what: string,
    readonly limitBytes: number,
    readonly outcomeUnknown: boolean,
  ) {
    const notRead = `${what} is larger than ${sizeText(limitBytes)}, the most opsctl reads of an answer; it was not read`
    super(`${notRead}${outcomeUnknown ? ', and the request may have been applied' : ''}`, ExitCode.Server, [
      `If the answer is meant to be that large, raise the limit with --max-body <MiB> (or OPSCTL_MAX_BODY)`,
    ])
    this.notRead = notRead
  }
}
