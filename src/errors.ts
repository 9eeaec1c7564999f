/**
 * The error classes every command throws, and the exit-code table of DESIGN.md.
 * BaseCommand.catch() turns any of them into one line on stderr (or `{"error": ...}` under --json)
 * and the exit code below. Anything else is exit 1.
 *
 * 2 (Usage) means "nothing was sent": only errors raised before a request left use it, never an
 * answer from a server (see exitCodeForStatus).
 */
import {escapeControlChars} from './control-chars.js'

export const ExitCode = {
  Ok: 0,
  Unexpected: 1,
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  Refused: 5,
  Server: 6,
  Network: 7,
  /** Ctrl-C: at a prompt (nothing was sent), or while running (the process ends by SIGINT, which a shell reports as 130). */
  Interrupted: 130,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

export const MIB = 1024 * 1024

/** A size in an error message: `16 MiB`, or bytes under one MiB. */
export function sizeText(bytes: number): string {
  return bytes >= MIB ? `${Math.round((bytes / MIB) * 10) / 10} MiB` : `${bytes} bytes`
}

export interface FieldError {
  field: string
  description: string
}

/**
 * A next step as a fact, for the CLI to word as a command line (src/cli/hints.ts): the layers
 * below the CLI know what to do next, not how the CLI spells it.
 */
export type NextStep =
  | {step: 'checkout-get'; checkoutId: string}
  | {period?: string; step: 'metrics-names'}
  /** The metric is asked in its own period. */
  | {period: string; step: 'metrics-period'}
  | {step: 'profile-add'; flag: 'base-urls' | 'public-key' | 'secret-key'}
  | {step: 'plan-show'; userId: string}
  | {step: 'profile-show'}
  | {step: 'profile-urls'}
  | {step: 'refund-again'; amount: string; checkoutId: string; currency: string; reason: string}
  | {step: 'refund-full'; checkoutId: string}
  | {step: 'refund-get'; checkoutId: string; refundId: string}
  | {step: 'refund-list'; checkoutId: string}
  | {port?: number; step: 'sandbox-start'}
  | {step: 'sandbox-token'}
  | {again?: boolean; step: 'sign-in'}
  /** 403: another user's data, or a write by a linked caregiver (who may only read): that user's own session. */
  | {step: 'sign-in-as-owner'}
  | {step: 'void'; checkoutId: string}
  | {step: 'void-again'; checkoutId: string; reason: string}
  | {step: 'webhook-delete'; webhookId: string}
  | {step: 'webhook-list'}
  | {step: 'webhook-update'; name: string; url: string; webhookId: string}

export class OpsError extends Error {
  readonly exitCode: ExitCode
  /** "Try this" actions shown under the message. */
  readonly suggestions: string[]
  /** Next steps as facts; the CLI adds them to the suggestions, worded as commands. */
  readonly next: NextStep[] = []
  /** More of what happened, one line each under the message (every problem of a scenario file). */
  readonly details: string[] = []

  constructor(message: string, exitCode: ExitCode, suggestions: string[] = []) {
    super(message)
    this.name = new.target.name
    this.exitCode = exitCode
    this.suggestions = suggestions
  }

  /** Adds next steps (facts) and returns the error, for `throw new X(...).withNext(...)`. */
  withNext(...steps: NextStep[]): this {
    this.next.push(...steps)
    return this
  }

  toJSON(): Record<string, unknown> {
    return {
      message: this.message,
      exitCode: this.exitCode,
      ...(this.details.length > 0 ? {details: this.details} : {}),
      ...(this.suggestions.length > 0 ? {suggestions: this.suggestions} : {}),
    }
  }
}

/** Bad flags or input, caught before anything was sent (exit 2). */
export class UsageError extends OpsError {
  constructor(message: string, suggestions: string[] = []) {
    super(message, ExitCode.Usage, suggestions)
  }
}

/** How a caller names an input it supplied: a command its flag (`--reason`), a bulk run its column (`reason`). */
export type InputNamer = (input: string) => string

/** An input named as the layer below the CLI knows it (`reason`, `callbackUrl`). */
const plainName: InputNamer = (input) => input

/**
 * A value the caller supplied cannot be used (exit 2, nothing sent), as a fact: `inputs` are the
 * service's own names for the values at fault and `wording` says what is wrong, naming each
 * through the namer it is given. The layers below the CLI never spell a flag: a command words the
 * error with its flags (`worded`), a bulk run with its columns; unworded it names the inputs plainly.
 */
export class InputError extends UsageError {
  constructor(
    readonly inputs: readonly string[],
    private readonly wording: (name: InputNamer) => {message: string; suggestions?: string[]},
  ) {
    const {message, suggestions} = wording(plainName)
    super(message, suggestions)
  }

  /** The same error in the caller's words for its inputs. */
  worded(name: InputNamer): UsageError {
    const {message, suggestions} = this.wording(name)
    return new UsageError(message, suggestions).withNext(...this.next)
  }
}

/** The person at the prompt said no: nothing was sent (exit 2). Audited as `declined`. */
export class DeclinedError extends UsageError {}

/** Ctrl-C at a prompt: nothing was sent; exit 130, as a shell reports a command Ctrl-C ended. Audited as `declined`. */
export class CancelledError extends DeclinedError {
  override readonly exitCode: ExitCode = ExitCode.Interrupted

  constructor() {
    super('Cancelled; nothing was sent')
  }
}

/** Missing or rejected credentials detected locally (exit 3). */
export class CredentialsError extends OpsError {
  constructor(message: string, suggestions: string[] = []) {
    super(message, ExitCode.Auth, suggestions)
  }
}

/**
 * A business rule refuses the action: void window closed, refund over the amount, unsupported
 * metric (exit 5). A server's 4xx answer other than 401/403/404/408/410/429 is exit 5 too.
 */
export class RuleError extends OpsError {
  constructor(
    message: string,
    suggestions: string[] = [],
    readonly code?: string,
  ) {
    super(message, ExitCode.Refused, suggestions)
  }
}

/** Connection refused, reset, or timed out (exit 7). `outcomeUnknown` is set when a non-idempotent request may have been applied. */
export class NetworkError extends OpsError {
  constructor(
    message: string,
    override readonly cause?: unknown,
    readonly outcomeUnknown = false,
    suggestions: string[] = [],
  ) {
    super(message, ExitCode.Network, suggestions)
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), outcomeUnknown: this.outcomeUnknown}
  }
}

export interface ApiErrorInit {
  status: number
  code?: string
  message: string
  fieldErrors?: FieldError[]
  requestId?: string
  service: string
  operationId: string
  exitCode?: ExitCode
  suggestions?: string[]
  /** The answer's `Retry-After` (seconds or an HTTP date), as sent: for a 429 or 503. */
  retryAfter?: string
  /** What fixes a 401/403 on this service (its module says); by default a look at the profile. */
  authStep?: NextStep
}

/** A non-2xx answer from a service, whatever its error-body form. */
export class ApiError extends OpsError {
  readonly status: number
  readonly code?: string
  readonly fieldErrors: FieldError[]
  readonly requestId?: string
  readonly service: string
  readonly operationId: string
  readonly serverMessage: string
  readonly retryAfter?: string

  constructor(init: ApiErrorInit) {
    const exitCode = init.exitCode ?? exitCodeForStatus(init.status)
    super(describeApiError(init), exitCode, init.suggestions ?? defaultSuggestions(init.status))
    if (!init.suggestions && (init.status === 401 || init.status === 403)) {
      this.withNext(init.authStep ?? {step: 'profile-show'})
    }

    this.status = init.status
    this.code = init.code
    this.fieldErrors = init.fieldErrors ?? []
    this.requestId = init.requestId
    this.service = init.service
    this.operationId = init.operationId
    this.serverMessage = init.message
    this.retryAfter = init.retryAfter
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      code: this.code ?? null,
      serverMessage: this.serverMessage,
      fieldErrors: this.fieldErrors,
      requestId: this.requestId ?? null,
      operation: this.operationId,
    }
  }
}

/**
 * The exit code of a server's answer. Exit 2 ("usage: nothing was sent") is never one of them: a
 * server that answered was sent something. Any 4xx the table does not name (400, 405, 413, 431,
 * ...) is the service refusing the request as sent: exit 5, like a business rule, since in both
 * cases the service said no and nothing was applied.
 */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return ExitCode.Auth
  if (status === 404 || status === 410) return ExitCode.NotFound
  if (status === 408) return ExitCode.Network
  if (status === 429) return ExitCode.Server
  if (status >= 400 && status < 500) return ExitCode.Refused
  return ExitCode.Server
}

function describeApiError(init: ApiErrorInit): string {
  // Each problem once: a service that already lists them in its message (`items: ...`) is not repeated.
  const fields = (init.fieldErrors ?? [])
    .map((f) => `${f.field}: ${f.description}`)
    .filter((f) => !init.message.includes(f))
    .join('; ')
  const facts = [`HTTP ${init.status}`, init.code && `code ${init.code}`, `request id ${init.requestId ?? 'none'}`]
    .filter(Boolean)
    .join(', ')
  return `${init.message}${fields ? ` (${fields})` : ''} [${facts}]`
}

function defaultSuggestions(status: number): string[] {
  if (status >= 500) return ['Retry later; quote the request id to support if it persists']
  return []
}

/**
 * One line for humans; suggestions follow on their own lines. A message quotes a server or a
 * file: its control characters are escaped (`shown` first removes what must not be shown at all).
 */
export function formatErrorForHuman(error: OpsError, shown: (text: string) => string = (text) => text, width?: number): string {
  const lines = wrapWords(`Error: ${escapeControlChars(shown(error.message))}`, width, '  ')
  for (const d of error.details) lines.push(...wrapWords(`  ${escapeControlChars(shown(d))}`, width, '    '))
  for (const s of error.suggestions) lines.push(...wrapWords(`  Try this: ${escapeControlChars(shown(s))}`, width, '    '))
  return lines.join('\n')
}

/**
 * A line broken between words so that none is wider than `width` (when given), the next lines
 * indented. A word longer than the width (a URL) stays whole on a line of its own.
 */
export function wrapWords(text: string, width: number | undefined, indent: string): string[] {
  if (!width || text.length <= width) return [text]
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/(?<=\S) (?=\S)/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = indent + word.trimStart()
    } else {
      line = line ? `${line} ${word}` : word
    }
  }

  if (line) lines.push(line)
  return lines
}
