/**
 * The one rule for answers (fail closed): an answer to a row of a table is used only when its
 * status is the row's `successStatus` and its body parses against the row's response schema.
 * Anything else (a redirect, which is never followed; another status; an empty body where one is
 * due; a body that is not JSON, such as an HTML page; a body without a field the row declares, or
 * with one of another type) is an `UnreadableAnswerError` (exit 6): nothing is taken from it, and
 * no caller substitutes an empty list or a default for it. Schemas stay open to fields they do not
 * name. The body as received is in the `--verbose` trace, redacted.
 */
import type {Operation} from './operation.js'
import type {InboundResponse} from './transport.js'

import {ExitCode, OpsError} from '../errors.js'
import {parseOptions} from './first-parse.js'
import {scrubSecrets} from './redact.js'

/**
 * An answer that cannot be read (exit 6): what arrived (status, content type) and its first
 * problem, on one line. `outcomeUnknown`: the request was a change (not a GET), which the service
 * may have applied although its answer says nothing readable about it.
 */
export class UnreadableAnswerError extends OpsError {
  constructor(
    readonly operationId: string,
    readonly status: number,
    readonly problem: string,
    readonly outcomeUnknown: boolean,
    /** How the answer arrived: `HTTP 302, text/html`. */
    readonly arrived: string,
  ) {
    super(
      `the ${operationId} answer could not be read: ${arrived}, ${problem}; nothing was taken from it` +
        (outcomeUnknown ? '. The request may have been applied: check before sending it again' : ''),
      ExitCode.Server,
    )
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), status: this.status, operation: this.operationId, problem: this.problem, outcomeUnknown: this.outcomeUnknown}
  }
}

/** `HTTP 302, text/html`; `HTTP 204, no body` when nothing came (`text` empty). */
export function arrivedAs(res: Pick<InboundResponse, 'headers' | 'status'> & {text?: string}): string {
  const type = [res.headers['content-type']].flat()[0]?.split(';', 1)[0].trim()
  return `HTTP ${res.status}, ${res.text === '' ? 'no body' : type || 'no content type'}`
}

/** A 3xx: said with where it points (scrubbed, cut), for the person who must fix the base URL. */
function redirectProblem(res: Pick<InboundResponse, 'headers'>): string {
  const location = [res.headers.location].flat()[0]
  return `a redirect${location ? ` to ${scrubSecrets(location).slice(0, 200)}` : ''} (redirects are not followed)`
}

/** What is wrong with a body that should be JSON: nothing (its value), or the problem. */
function jsonOf(text: string): {problem: string} | {value: unknown} {
  if (text === '') return {problem: 'an empty body where JSON is due'}
  try {
    return {value: JSON.parse(text)}
  } catch {
    // JSON.parse's own message quotes the body: it is not repeated (patient data, secrets).
    return {problem: /^\s*</.test(text) ? 'an HTML page where JSON is due' : 'a body that is not valid JSON (cut off or malformed)'}
  }
}

/**
 * The rule for an answer without a row (`opsctl api`, sandbox control calls), below 400 (the
 * callers make ApiErrors of the others): a 2xx is a success, its body as received, empty or not;
 * a redirect or another status, or a body that is not JSON where JSON was asked for, is the
 * UnreadableAnswerError returned.
 */
export function rawAnswerProblem(
  label: string,
  method: string,
  res: Pick<InboundResponse, 'headers' | 'status' | 'text'>,
  jsonAsked = true,
): undefined | UnreadableAnswerError {
  const fail = (problem: string) => new UnreadableAnswerError(label, res.status, problem, method !== 'GET', arrivedAs(res))
  if (res.status >= 300 && res.status < 400) return fail(redirectProblem(res))
  if (res.status < 200 || res.status >= 300) return fail('not a success (2xx)')
  if (!jsonAsked || res.text === '') return undefined
  const json = jsonOf(res.text)
  return 'problem' in json ? fail(json.problem) : undefined
}

/** One problem zod found, with its path (`0.id: Invalid input: expected string, received number`). */
export function issueText(issue: {message: string; path: readonly PropertyKey[]}): string {
  return issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message
}

/** The data of an answer to `op` (status below 400: the client turned the others into ApiErrors), or the error it is. */
export function readAnswer(op: Operation, res: Pick<InboundResponse, 'headers' | 'status' | 'text'>): unknown {
  const fail = (problem: string) => new UnreadableAnswerError(op.id, res.status, problem, op.method !== 'GET', arrivedAs(res))
  if (res.status >= 300 && res.status < 400) throw fail(redirectProblem(res))
  if (res.status !== op.successStatus) throw fail(`expected HTTP ${op.successStatus}`)
  // A row without a response schema takes no body: whatever came is not read.
  if (!op.response) return undefined
  const json = jsonOf(res.text)
  if ('problem' in json) throw fail(json.problem)
  const parsed = op.response.safeParse(json.value, parseOptions(op.response))
  if (!parsed.success) throw fail(parsed.error.issues[0] ? issueText(parsed.error.issues[0]) : 'not the expected shape')
  return parsed.data
}
