/**
 * The probe runner of `sandbox diff`: one fixed suite of probes, each run on both sides (the
 * profile's service, "theirs", and the local sandbox, "ours") and their answers compared
 * (./shape.ts). A probe that changes data runs only when asked (--yes); one that pays on the
 * hosted page or moves the clock only when both sides are opsctl sandboxes. Whatever probes make
 * is removed at the end, and what could not be removed is reported.
 */
import type {Operation} from '../../http/operation.js'
import type {ServiceTarget} from '../../http/services.js'
import type {Transport} from '../../http/transport.js'
import type {SandboxControlTarget} from '../sandbox-control.js'

import {CredentialsError, NetworkError, OpsError} from '../../errors.js'
import {AnswerTooLargeError} from '../../http/answer-limit.js'
import {ServiceClient} from '../../http/client.js'
import {parseJson} from '../../http/json.js'
import {registerSecret} from '../../http/secrets/registry.js'
import {authFor} from '../../http/services.js'
import {buildUrl, expandPath, type QueryValue} from '../../http/url.js'
import {type Answer, compareAnswers, type Difference} from './shape.js'

export type SideName = 'ours' | 'theirs'

/** One of the two services compared, as the probes reach it. */
export interface DiffSide {
  name: SideName
  /** `profile staging (production)`, `an embedded sandbox at http://127.0.0.1:43121` */
  label: string
  /** every service's target by name (`health` carries the session the probes read with) */
  targets: Record<string, ServiceTarget>
  transport: Transport
  /** an opsctl sandbox: its hosted page takes the test cards and its control plane makes tenants whose clocks move */
  sandbox?: SandboxControlTarget
  /** made for the run and removed whole after it: what its probes made needs no clean-up of its own */
  disposable?: boolean
}

export interface ProbeInput {
  params?: Record<string, string>
  query?: Record<string, QueryValue>
  /** sent as JSON as it is: a probe may send what the table's schema would refuse */
  body?: unknown
  /** the target with some of its values replaced (a key that is not the account's) */
  target?: Partial<ServiceTarget>
}

/** What one probe has on one side: the values earlier probes gave, and what to remove at the end. */
export interface ProbeContext {
  side: DiffSide
  values: Record<string, string>
  cleanups: Cleanup[]
  /** The answer to a row of a table, whatever its status. */
  send(op: Operation, input?: ProbeInput): Promise<Answer>
  /** A typed client of a service on this side, for a probe's set-up (an error answer throws). */
  client(service: string): ServiceClient
}

export interface Cleanup {
  /** what it removes: "webhook wh_1", "checkout chk_1 (voided)" */
  what: string
  run(): Promise<void>
}

export interface Probe {
  /** `checkout.create`: service, then what it does */
  name: string
  service: string
  /** what it sends, in a few words */
  what: string
  /** it creates, changes or deletes something: runs only with --yes, never on a production profile */
  changes: boolean
  /** `session`: a health session on the profile's side; `sandbox`: both sides are opsctl sandboxes (a buyer, a clock) */
  needs?: readonly ('sandbox' | 'session')[]
  /** values earlier probes leave in `values` */
  uses?: readonly string[]
  /** values this probe leaves for later ones, from a field of a successful answer: `{checkoutId: 'checkoutId'}` */
  keeps?: Readonly<Record<string, string>>
  /** paths whose values are compared (statuses, codes): every other value is meant to differ */
  enums?: readonly string[]
  /** fields the account's own data fills or not (a user's birth date): present on one side only is not a difference */
  accountFields?: readonly string[]
  run(ctx: ProbeContext): Promise<Answer>
}

/** Thrown by a probe that cannot be made here (no webhook name left to register): the probe is skipped, not failed. */
export class NotProbed extends Error {}

export type ProbeOutcome = 'different' | 'failed' | 'same' | 'skipped'

export interface ProbeResult {
  probe: string
  service: string
  what: string
  outcome: ProbeOutcome
  /** why it was skipped, or what failed */
  note?: string
}

export interface DiffReport {
  probes: ProbeResult[]
  differences: Difference[]
  /** what a clean-up could not remove, and where */
  left: string[]
}

/** Why a probe does not run at all (on either side), or undefined when it runs. */
export function skipReason(probe: Probe, sides: Record<SideName, DiffSide>, options: {changes: boolean}): string | undefined {
  if (probe.changes && !options.changes) return 'changes data: runs with --yes'
  if (probe.needs?.includes('sandbox') && (!sides.ours.sandbox || !sides.theirs.sandbox)) {
    return 'pays on the hosted page or moves the clock: runs only when the profile is an opsctl sandbox'
  }

  if (probe.needs?.includes('session') && !sides.theirs.targets.health?.session) return 'the profile has no health session'
  return undefined
}

/** What probes on `side` run with: its targets, the values earlier probes left, its clean-ups. */
export function probeContext(side: DiffSide): ProbeContext {
  // Keys and sessions never show in traces, errors or the report.
  for (const target of Object.values(side.targets)) for (const secret of [target.publicKey, target.secretKey, target.session]) registerSecret(secret)
  const clients = new Map<string, ServiceClient>()
  return {
    cleanups: [],
    client(service) {
      if (!clients.has(service)) clients.set(service, new ServiceClient({target: side.targets[service], transport: side.transport}))
      return clients.get(service)!
    },
    async send(op, input = {}) {
      const target = {...side.targets[op.service], ...input.target}
      const res = await side.transport.send({
        auth: authFor(target, op.auth),
        body: input.body === undefined ? undefined : {json: input.body},
        idempotent: op.idempotent,
        label: op.id,
        method: op.method,
        url: buildUrl(target.baseUrl, expandPath(op.path, input.params), input.query),
      })
      return {body: res.text === '' ? undefined : (parseJson(res.text) ?? res.text), status: res.status}
    },
    side,
    values: {},
  }
}

/**
 * A failure that ends the whole run (nothing answers, a credential is missing, an answer over
 * --max-body on either side): its own exit code.
 */
const fatal = (error: unknown) => error instanceof NetworkError || error instanceof CredentialsError || error instanceof AnswerTooLargeError

function describe(error: unknown): string {
  if (error instanceof OpsError) return error.message.split('\n')[0]
  return `unexpected: ${(error as Error).message}`
}

type Outcome = {answer: Answer} | {error: string}

const summary = (o: Outcome) => ('answer' in o ? `answered ${o.answer.status}` : `failed: ${o.error}`)

/** Runs every probe on theirs, then on ours, compares, and removes what the probes made (both sides), whatever happened. */
export async function runProbes(
  probes: readonly Probe[],
  sides: Record<SideName, DiffSide>,
  options: {changes: boolean; onProbe?: (result: ProbeResult) => void; onLeft?: (left: string[]) => void},
): Promise<DiffReport> {
  const contexts = {ours: probeContext(sides.ours), theirs: probeContext(sides.theirs)}
  const report: DiffReport = {differences: [], left: [], probes: []}
  const done = (result: ProbeResult) => {
    report.probes.push(result)
    options.onProbe?.(result)
  }

  try {
    for (const probe of probes) {
      const base = {probe: probe.name, service: probe.service, what: probe.what}
      const missing = (probe.uses ?? []).filter((v) => Object.values(contexts).some((c) => c.values[v] === undefined))
      const skip = skipReason(probe, sides, options) ?? (missing.length > 0 ? `needs ${missing.join(', ')} from an earlier probe` : undefined)
      if (skip) {
        done({...base, note: skip, outcome: 'skipped'})
        continue
      }

      const outcomes = {} as Record<SideName, Outcome>
      let notProbed: string | undefined
      for (const name of ['theirs', 'ours'] as const) {
        try {
          const answer = await probe.run(contexts[name])
          keep(contexts[name], answer, probe.keeps)
          outcomes[name] = {answer}
        } catch (error) {
          if (fatal(error)) throw error
          if (error instanceof NotProbed) {
            notProbed = `${name}: ${error.message}`
            break
          }

          outcomes[name] = {error: describe(error)}
        }
      }

      if (notProbed) {
        done({...base, note: notProbed, outcome: 'skipped'})
        continue
      }

      const {ours, theirs} = outcomes
      if ('answer' in ours && 'answer' in theirs) {
        const differences = compareAnswers(probe.name, ours.answer, theirs.answer, probe)
        report.differences.push(...differences)
        done({...base, outcome: differences.length > 0 ? 'different' : 'same'})
      } else if ('error' in ours && 'error' in theirs) {
        done({...base, note: `ours ${summary(ours)}; theirs ${summary(theirs)}`, outcome: 'failed'})
      } else {
        report.differences.push({ours: summary(ours), probe: probe.name, theirs: summary(theirs), where: 'probe'})
        done({...base, outcome: 'different'})
      }
    }
  } finally {
    for (const name of ['theirs', 'ours'] as const) if (!sides[name].disposable) report.left.push(...(await cleanUp(contexts[name])))
    // Said even when the run ends with an error, which has no report to carry it.
    if (report.left.length > 0) options.onLeft?.(report.left)
  }

  return report
}

function keep(ctx: ProbeContext, answer: Answer, keeps: Probe['keeps'] = {}): void {
  if (answer.status >= 300 || !answer.body || typeof answer.body !== 'object') return
  for (const [value, field] of Object.entries(keeps)) {
    const found = (answer.body as Record<string, unknown>)[field]
    if (typeof found === 'string') ctx.values[value] = found
  }
}

/** Runs a side's clean-ups, newest first; returns what stayed ("theirs: webhook wh_1 (HTTP 500 ...)"). */
async function cleanUp(ctx: ProbeContext): Promise<string[]> {
  const left: string[] = []
  for (const cleanup of ctx.cleanups.reverse()) {
    try {
      await cleanup.run()
    } catch (error) {
      left.push(`${ctx.side.name}: ${cleanup.what} (${describe(error)})`)
    }
  }

  return left
}
