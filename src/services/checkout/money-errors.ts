/**
 * How a void or refund fails, as facts a caller words: a rule's refusal and what to do instead,
 * a read before sending that could not be read, an answer lost (or unreadable) and what the read
 * back found, a refund the service answered FAILED.
 */
import {ApiError, ExitCode, InputError, NetworkError, type NextStep, OpsError, RuleError} from '../../errors.js'
import {AnswerTooLargeError} from '../../http/answer-limit.js'
import {UnreadableAnswerError} from '../../http/answer.js'
import {CODES, type RuleViolation} from './rules.js'

/** What to do instead of a refused void or refund, by the refusal's code (the service's or ours). */
function insteadOf(code: string | undefined, checkoutId: string): NextStep | undefined {
  switch (code) {
    case CODES.voidAfterCutoff: {
      return {step: 'refund-full', checkoutId}
    }

    case CODES.refundBeforeCutoff: {
      return {step: 'void', checkoutId}
    }

    case CODES.refundExists:
    case CODES.amountOver: {
      return {step: 'refund-list', checkoutId}
    }

    default: {
      return undefined
    }
  }
}

/** A rule refusal: exit 5, its code, and (for a closed or not yet open window) what applies now. */
export function ruleError(violation: RuleViolation, checkoutId: string): RuleError {
  const error = new RuleError(violation.message, [], violation.code)
  const next = violation.next ? insteadOf(violation.code, checkoutId) : undefined
  return next ? error.withNext(next) : error
}

/** Adds the "what to do instead" to the service's own rule refusals (it keeps status and request id). */
export function withNextStep(error: unknown, checkoutId: string): unknown {
  if (!(error instanceof ApiError)) return error
  const next = insteadOf(error.code, checkoutId)
  if (!next) return error
  return new ApiError({
    status: error.status,
    code: error.code,
    message: error.serverMessage,
    fieldErrors: error.fieldErrors,
    requestId: error.requestId,
    service: error.service,
    operationId: error.operationId,
    exitCode: error.exitCode,
    suggestions: [],
  }).withNext(next)
}

export const emptyReason = (): InputError => new InputError(['reason'], (name) => ({message: `${name('reason')} must not be empty`}))

/** The audit code, and a bulk row's, of a change refused because a read it depends on could not be read. */
export const UNREADABLE_PRECHECK = 'unreadable-answer'

/** A read a void or refund depends on answered something that cannot be read: nothing was sent (exit 6). */
export class PrecheckUnreadableError extends OpsError {
  readonly code = UNREADABLE_PRECHECK

  constructor(
    message: string,
    override readonly cause: UnreadableAnswerError,
  ) {
    super(message, ExitCode.Server)
  }
}

/** "could not read the refunds of checkout chk_1 (HTTP 302, text/html, a redirect ...); nothing was sent" */
export function unreadablePrecheck(what: string, error: UnreadableAnswerError): string {
  return `could not read ${what} (${error.arrived}, ${error.problem}); nothing was sent`
}

/** The answer to a sent change that calls for a read-back: none came (the connection), or one that cannot be read (not the row's shape, or over --max-body). */
export type LostAnswer = AnswerTooLargeError | NetworkError | UnreadableAnswerError

/** True for the errors that call for a reconciliation: sent, then no answer, or one that cannot be read. */
export function answerLost(error: unknown): error is LostAnswer {
  return (error instanceof NetworkError || error instanceof UnreadableAnswerError || error instanceof AnswerTooLargeError) && error.outcomeUnknown
}

/** An answer came, but it cannot be read (exit 6); otherwise none came (exit 7). */
const answerUnreadable = (lost: LostAnswer) => lost instanceof UnreadableAnswerError || lost instanceof AnswerTooLargeError

/**
 * The answer to a void or refund was lost and it did not happen (`not applied`), or whether it
 * happened could not be read (`unknown`). Nothing more is sent. Exit 7 when no answer came, 6
 * when the answer could not be read.
 */
export class LostAnswerError extends NetworkError {
  constructor(
    message: string,
    readonly reconciled: 'not applied' | 'unknown',
    cause: LostAnswer,
    next: NextStep[],
  ) {
    super(message, cause, reconciled === 'unknown')
    if (answerUnreadable(cause)) (this as {exitCode: ExitCode}).exitCode = ExitCode.Server
    this.withNext(...next)
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), reconciled: this.reconciled}
  }
}

/** The server (or the network in front of it) ended the exchange without an answer. */
const SERVER_CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])

/**
 * Whether a read that does not show the change may be taken as "not applied". Only when the
 * server's side closed the connection: the request's handling ended there, so a checkout that
 * does not show the change right after did not get it. That is not a proof (a proxy may cut a
 * connection its backend still serves), and it does not have to be one: a rerun stays safe, since
 * the service takes one void and one refund per checkout, so a change that landed late makes the
 * rerun refuse (exit 5), never move money twice.
 *
 * When the CLI gave up (its timeout, an abort, anything else), or an answer came that cannot be
 * read (a proxy's page, say), the request may still be queued or running at the service, and the
 * spec names no deadline after which it would be dropped: the sandbox applied a 3 s-late void
 * after a 1 s timeout every time. A read that does not show the change proves nothing then, so
 * the outcome is reported unknown, with the command to check.
 */
export function serverClosedConnection(lost: LostAnswer): boolean {
  if (!(lost instanceof NetworkError)) return false
  const cause = lost.cause as {code?: string; cause?: {code?: string}} | undefined
  const code = cause?.code ?? cause?.cause?.code
  return code !== undefined && SERVER_CLOSED.has(code)
}

/** What happened to the answer, without the generic "may have been applied": the read says which. */
export function whatHappened(lost: LostAnswer): string {
  if (lost instanceof UnreadableAnswerError) return `the ${lost.operationId} answer could not be read: ${lost.arrived}, ${lost.problem}`
  if (lost instanceof AnswerTooLargeError) return lost.notRead
  return lost.message.replace(/; the request may have been applied$/, '')
}

/** What happened to the answer to the `what` ("void", "refund"): "<the connection's error> (the answer to the refund was lost)", or the unreadable answer's own words. */
export function lostAnswerWords(lost: LostAnswer, what: string): string {
  return answerUnreadable(lost) ? whatHappened(lost) : `${whatHappened(lost)} (the answer to the ${what} was lost)`
}

export function refundFailed(checkoutId: string, refundId: string, value: string, currency: string): RuleError {
  return new RuleError(
    `refund ${refundId} of ${value} ${currency} FAILED: nothing was refunded (a failed refund does not use up the one refund)`,
  ).withNext({step: 'refund-get', checkoutId, refundId})
}
