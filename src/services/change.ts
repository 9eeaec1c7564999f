/**
 * A change to a service as a command makes it: ask (consent), send, record (audit). Consent and
 * audit are values the command hands in (`ChangeSteps`, built by the CLI: src/cli/client-wiring.ts),
 * read from the row: a request that changes something is asked for (a destructive row with its
 * prompt), an `audited` row's attempt is recorded whatever its outcome. src/http only sends.
 *
 * Two ways in: `ChangeClient.call`, the generic runner of every row that is not a GET, and the steps `ask`, `sendRecorded` and `record` that the money
 * pipeline (./checkout/money-change.ts) runs in its own order.
 */
import type {ApiResponse, CallInput, CallOptions, ClientOptions} from '../http/client.js'

import {ApiError, DeclinedError, ExitCode, NetworkError} from '../errors.js'
import {AnswerTooLargeError} from '../http/answer-limit.js'
import {UnreadableAnswerError} from '../http/answer.js'
import {ServiceClient} from '../http/client.js'
import {type InputArgs, type Operation, type ResultOf} from '../http/operation.js'

/**
 * How an attempt at an audited operation ended:
 * - `applied`; `refused` by the service (its status and code); `failed` (a server error);
 * - `refused by rule`: a business rule refused it before sending (the rule's code);
 * - `declined` at the confirmation prompt (nothing sent);
 * - `refused locally`: opsctl refused the command before sending (bad input, no consent possible,
 *   or a read it had to make first answered something it could not read: code `unreadable-answer`);
 * - `unknown` (sent, and no answer, or one that could not be read); `not sent` (the connection failed first);
 * - `not applied`: only on a reconciliation line (the answer was lost; a read showed nothing changed).
 */
export const ATTEMPT_OUTCOMES = [
  'applied',
  'refused',
  'refused by rule',
  'declined',
  'refused locally',
  'failed',
  'unknown',
  'not sent',
  'not applied',
] as const
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number]

/** An amount an audit line names that the request does not carry (the amount a void reverses). */
export interface AuditAmount {
  currency?: string
  value: string
}

/** One attempt at an audited operation, as the audit log records it (never a credential). */
export interface AttemptRecord {
  operation: Operation
  params: Record<string, string | undefined>
  body: unknown
  outcome: AttemptOutcome
  /** The rule's code (refused by rule) or the service's error code (refused, failed). */
  code?: string
  /** The line reports a reconciliation (what a read found after the answer was lost), not a request. */
  reconciled?: boolean
  status?: number
  requestId?: string
  message?: string
  data?: unknown
  note?: {amount?: AuditAmount}
}

/** An attempt before its outcome is known. */
export type Attempt = Omit<AttemptRecord, 'outcome'>

/** What a destructive change's prompt says: the action, what it uses up (after the question), the id typed back on production. */
export interface ChangeWords {
  action: string
  detail?: string
  resourceId?: string
}

/** Consent to a change, given or refused before it is sent: `ask` throws (DeclinedError, or a usage error when none can be given) to send nothing. */
export interface Consent {
  ask(operation: Operation, params: Record<string, string | undefined>, words?: ChangeWords): Promise<void>
}

/** Where attempts at audited rows go. */
export interface AuditSink {
  /** Throws when an attempt could not be recorded (the log cannot be written): asked before an audited change, so nothing is sent. */
  ready?(): Promise<void>
  record(attempt: AttemptRecord): Promise<void>
  /** Called as an attempt is sent; what it returns, once its answer (or failure) is in. Ctrl-C in between is recorded `unknown`. */
  sending(attempt: Attempt): () => void
}

/** What a command hands to a change: who consents, where the attempt is recorded. */
export interface ChangeSteps {
  consent: Consent
  audit: AuditSink
}

/** Nothing asked, nothing recorded: a caller that is not a person's command (tests, a sandbox's own smoke run). */
export const NO_STEPS: ChangeSteps = {
  audit: {record: async () => undefined, sending: () => () => undefined},
  consent: {ask: async () => undefined},
}

/** Records an attempt at an audited row (a row that is not audited leaves no line). */
export async function record(steps: ChangeSteps, attempt: AttemptRecord): Promise<void> {
  if (attempt.operation.audited) await steps.audit.record(attempt)
}

/** Ask: consent to the change; a no is recorded (`declined`) before it is thrown. */
export async function ask(steps: ChangeSteps, attempt: Attempt, words?: ChangeWords): Promise<void> {
  if (attempt.operation.audited) await steps.audit.ready?.()
  try {
    await steps.consent.ask(attempt.operation, attempt.params, words)
  } catch (error) {
    if (error instanceof DeclinedError) await record(steps, {...attempt, outcome: 'declined', message: error.message})
    throw error
  }
}

/** Send, and record the attempt's outcome whatever it is (an audited row; Ctrl-C before the answer too). */
export async function sendRecorded<T>(steps: ChangeSteps, attempt: Attempt, send: () => Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
  if (!attempt.operation.audited) return send()
  const answered = steps.audit.sending(attempt)
  try {
    const response = await send().finally(answered)
    await record(steps, {...attempt, data: response.data, outcome: 'applied', requestId: response.requestId, status: response.status})
    return response
  } catch (error) {
    await record(steps, {...attempt, ...attemptOutcome(error)})
    throw error
  }
}

/** What an error says of an attempt that was (or was to be) sent. */
export function attemptOutcome(error: unknown): Pick<AttemptRecord, 'code' | 'message' | 'outcome' | 'requestId' | 'status'> {
  if (error instanceof ApiError) {
    return {
      code: error.code,
      message: error.serverMessage,
      outcome: error.exitCode === ExitCode.Refused ? 'refused' : 'failed',
      requestId: error.requestId,
      status: error.status,
    }
  }

  if (error instanceof NetworkError || error instanceof AnswerTooLargeError) return {message: error.message, outcome: error.outcomeUnknown ? 'unknown' : 'not sent'}
  // Sent, and answered with something that cannot be read: whether it was applied is not known.
  if (error instanceof UnreadableAnswerError) return {message: error.message, outcome: 'unknown', status: error.status}
  return {message: (error as Error).message, outcome: 'not sent'}
}

/** What a change adds to a call: the prompt's words for a destructive row (by default from the row: "Delete webhook w-1"). */
export interface ChangeOptions extends CallOptions {
  confirm?: ChangeWords
}

/**
 * A client whose changes go through the steps, the generic runner of a change: a row that is not
 * a GET is checked (exit 2, nothing asked), asked for (`ask`), sent and recorded
 * (`sendRecorded`); reads go straight. What the CLI hands to commands, smoke and scenario steps.
 */
export class ChangeClient extends ServiceClient {
  constructor(
    options: ClientOptions,
    readonly steps: ChangeSteps,
  ) {
    super(options)
  }

  override async call<O extends Operation>(op: O, ...args: InputArgs<O, ChangeOptions>): Promise<ApiResponse<ResultOf<O>>> {
    const {confirm, ...input} = (args[0] ?? {}) as CallInput & ChangeOptions
    const send = () => super.call(op, ...([input] as unknown as InputArgs<O, CallOptions>))
    if (op.method === 'GET') return send()
    const attempt: Attempt = {body: this.checkInput(op, input), operation: op, params: input.params ?? {}}
    await ask(this.steps, attempt, confirm)
    // A dry run sends nothing: there is no attempt to record.
    if (this.transport.kind === 'dry-run') return send()
    return sendRecorded(this.steps, attempt, send)
  }
}
