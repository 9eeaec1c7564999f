import {isDeepStrictEqual} from 'node:util'

import type {ServiceClient} from '../../http/client.js'
import type {AuthKind, HttpMethod, Operation, Service, ServiceDefinition} from '../../http/operation.js'
import type {ServiceTarget} from '../../http/services.js'
import type {Outcome, StepResult} from '../report.js'
import type {SandboxControlTarget} from '../sandbox-control.js'

import {escapeControlChars} from '../../control-chars.js'
import {ApiError, OpsError} from '../../errors.js'

/** What the steps share: clients, the values earlier steps produced, and clean-ups to run at the end. */
export interface SmokeContext {
  health: ServiceClient
  checkout: ServiceClient
  /** Rebuilds the health client with a session (after createUser / signIn). */
  withSession(session: string): void
  /** Present when the run targets a sandbox: steps that need a buyer or the clock run only then. */
  sandbox?: SandboxControlTarget
  /** A client of the run's kind (options, transport) for another target: a tenant a step made for itself. */
  clientFor(target: ServiceTarget): ServiceClient
  /** The checkout client of the tenant the next-day steps made for themselves (its clock is theirs to move). */
  nextDay?: ServiceClient
  values: Record<string, any>
  /** Run in reverse order after the last step, whatever happened. */
  cleanups: {name: string; run: () => Promise<void>}[]
}

export interface SmokeStep {
  /** the service's name (its table's) */
  suite: string
  name: string
  /** the operation of the spec the step exercises (or a sandbox action) */
  operation: string
  /** The request the step is about, as a dry run lists it; absent when the step sends nothing itself. */
  request?: StepRequest
  sandboxOnly?: boolean
  /** needs the sandbox's control token (it makes a tenant of its own); skipped without it */
  control?: boolean
  /** values earlier steps must have produced; the step is skipped without them */
  needs?: string[]
  /** Returns the request id of the call the step is about. */
  run(ctx: SmokeContext): Promise<string | undefined>
}

/** A request a step sends, before its values are known: the path is a template such as `/v1/checkouts/{checkoutId}`. */
export interface StepRequest {
  service: Service
  method: HttpMethod
  path: string
  auth: AuthKind
}

/** What a step exercises: a row of an operations table, or an action outside them (the hosted page, a delivery). */
export type StepSubject = Operation | {id: string; request?: StepRequest}

export function subjectOf(subject: StepSubject): Pick<SmokeStep, 'operation' | 'request'> {
  if (!('method' in subject)) return {operation: subject.id, ...(subject.request ? {request: subject.request} : {})}
  const {auth, id, method, path, service} = subject
  return {operation: id, request: {auth, method, path, service}}
}

/** A step as a service's steps write it: the row it exercises is its key. */
export type StepBody = Pick<SmokeStep, 'control' | 'name' | 'needs' | 'run' | 'sandboxOnly'>
/** A step that is not a row (the hosted page, a webhook delivery): its key names it; `request` is what it sends, if anything. */
export type ActionBody = StepBody & {request?: StepRequest}

/**
 * A service's steps, keyed by its table and written in the order they run: every row's id is a
 * key (a row without a step fails tsc), and any other key is an action outside the table.
 */
export type StepsFor<S extends ServiceDefinition> = {[K in keyof S['operations']]: StepBody} & Record<string, ActionBody>

export function stepsOf<S extends ServiceDefinition>(service: S, steps: StepsFor<S>): SmokeStep[] {
  return Object.entries(steps as Record<string, ActionBody>).map(([key, {request, ...body}]) => {
    const row: Operation | undefined = Object.hasOwn(service.operations, key) ? service.operations[key] : undefined
    return {...body, ...subjectOf(row ?? {id: key, request}), suite: service.name}
  })
}

/** A check that did not hold. */
export class SmokeAssertion extends Error {}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new SmokeAssertion(message)
}

export function checkEqual(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new SmokeAssertion(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
  }
}

/** Why a step that makes a tenant of its own is skipped on a sandbox whose control token is unknown. */
export const NO_CONTROL_TOKEN = "needs the sandbox's control token to make a tenant of its own (OPSCTL_SANDBOX_TOKEN, or a sandbox started from this config folder)"

export interface RunOptions {
  bail?: boolean
  onStep?: (result: StepResult) => void
}

export async function runSteps(steps: readonly SmokeStep[], ctx: SmokeContext, options: RunOptions = {}): Promise<StepResult[]> {
  const results: StepResult[] = []
  let stop = false
  const report = (result: StepResult) => {
    results.push(result)
    options.onStep?.(result)
  }

  for (const step of steps) {
    const base = {name: step.name, operation: step.operation, suite: step.suite}
    const missing = (step.needs ?? []).filter((n) => ctx.values[n] === undefined)
    let skip: string | undefined
    if (stop) skip = 'stopped after the first failure (--bail)'
    else if (step.sandboxOnly && !ctx.sandbox) skip = 'needs a buyer or the clock: runs only against a sandbox (--sandbox)'
    else if (step.control && !ctx.sandbox?.token) skip = NO_CONTROL_TOKEN
    else if (missing.length > 0) skip = `needs ${missing.join(', ')} from an earlier step`
    if (skip) {
      report({...base, durationMs: 0, message: skip, outcome: 'skipped'})
      continue
    }

    const started = performance.now()
    let outcome: Outcome = 'passed'
    let message: string | undefined
    let requestId: string | undefined
    try {
      requestId = await step.run(ctx)
    } catch (error) {
      outcome = 'failed'
      message = describe(error)
      requestId = error instanceof ApiError ? error.requestId : undefined
      if (options.bail) stop = true
    }

    report({...base, durationMs: Math.round(performance.now() - started), message, outcome, requestId})
  }

  for (const cleanup of ctx.cleanups.reverse()) {
    try {
      await cleanup.run()
    } catch (error) {
      process.stderr.write(`warning: clean-up "${cleanup.name}" failed: ${escapeControlChars(describe(error))}\n`)
    }
  }

  return results
}

function describe(error: unknown): string {
  if (error instanceof SmokeAssertion) return error.message
  if (error instanceof OpsError) return error.message.split('\n')[0]
  return `unexpected: ${(error as Error).message}`
}
