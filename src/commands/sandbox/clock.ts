import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {hints} from '../../cli/hints.js'
import {type View} from '../../cli/output/view.js'
import {UsageError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox, sandboxControl} from '../../runtime/sandbox-control.js'
import {advanceProblem, clockTimeProblem} from '../../services/clock-bounds.js'
import {parseDuration} from '../../services/duration.js'

export default class SandboxClock extends BaseCommand<typeof SandboxClock> {
  // The clock the void and refund windows are read on: shown in the checkout service's zone (--utc: UTC).
  static override view: View = {zone: CHECKOUT_ZONE}
  static override requiresSandbox = {why: 'sandbox clock moves the clock of an embedded sandbox'}
  static override description = `Show or move the clock of the sandbox the profile points at.

Every sandbox rule reads this clock: the void window, session expiry, checkout expiry, metric ranges.

The clock moves forward only (a --set before its now is refused, exit 2; "sandbox reset" starts the tenant over), and what falls due on the way happens, in order: an unpaid checkout expires an hour after it was created (CHECKOUT_DROPOUT), a failed webhook delivery is retried 5, 15 and 45 minutes after each failure. After a move it says what fell due on the way (each checkout that expired, with its id), or that nothing did. Times are in the checkout zone (PH time, +08:00), where the void and refund windows are read; --utc shows UTC.`
  static override examples = [
    '<%= config.bin %> sandbox clock',
    '<%= config.bin %> sandbox clock --advance 24h',
    '<%= config.bin %> sandbox clock --set 2026-11-21T15:59:59Z',
  ]
  static override flags = {
    set: Flags.string({description: 'move the clock forward to this ISO 8601 time (not before its now; within 10 years of today)', exclusive: ['advance']}),
    advance: Flags.string({description: 'move the clock forward by a duration (at most 3653d): 26h, 90m, 1d12h'}),
  }

  protected async execute(): Promise<{now: string}> {
    const {flags} = this
    let body: undefined | {advance?: string; set?: string}
    if (flags.set !== undefined) {
      const at = Date.parse(flags.set)
      if (Number.isNaN(at)) throw new UsageError(`--set must be an ISO 8601 time, got ${flags.set}`)
      const problem = clockTimeProblem(at)
      if (problem) throw new UsageError(`--set ${problem}, got ${flags.set}`)
      body = {set: flags.set}
    } else if (flags.advance !== undefined) {
      const ms = parseDuration(flags.advance)
      if (ms === undefined) throw new UsageError(`--advance must be a duration such as 24h, 90m or 1d12h, got ${flags.advance}`)
      const problem = advanceProblem(ms)
      if (problem) throw new UsageError(`--advance ${problem}, got ${flags.advance}`)
      body = {advance: flags.advance}
    }

    const sandbox = await localSandbox((await this.profile()).profile.health.baseUrl, this.configDir)
    const transport = createTransport(this.clientOptions())
    if (body?.set !== undefined && !this.dryRun) {
      const {now} = await sandboxControl(transport, sandbox, 'GET', 'clock')
      if (Date.parse(body.set) < Date.parse(now)) {
        throw new UsageError(`--set ${body.set} is before the sandbox clock, now ${now}: the clock moves forward only (sandbox reset starts the tenant over)`)
      }
    }

    // What fell due on the way (a checkout that expired) is what a person moved the clock for: said after the new time.
    // Only for the note, which --json leaves out: a script reads the events itself (GET /__sandbox/events).
    const tell = body !== undefined && !this.dryRun && !this.jsonEnabled()
    const events = async () => (tell ? ((await sandboxControl(transport, sandbox, 'GET', 'events')) as {events?: SandboxEvent[]}).events ?? [] : [])
    const before = new Set((await events()).map((e) => JSON.stringify(e)))
    const result = await sandboxControl(transport, sandbox, body ? 'POST' : 'GET', 'clock', body)
    if (tell) {
      const due = (await events()).filter((e) => !before.has(JSON.stringify(e)))
      this.note(fellDue(due))
    }

    return {now: result.now}
  }
}

interface SandboxEvent {
  at?: string
  checkoutId?: string
  type?: string
}

const FELL_DUE: Record<string, string> = {
  CHECKOUT_DROPOUT: 'expired unpaid (CHECKOUT_DROPOUT)',
  CHECKOUT_FAILURE: 'failed (CHECKOUT_FAILURE)',
  CHECKOUT_SUCCESS: 'paid (CHECKOUT_SUCCESS)',
}

/** The note under a move of the clock: each checkout event it raised, or that nothing fell due. */
function fellDue(events: SandboxEvent[]): string {
  if (events.length === 0) return 'Nothing fell due on the way.'
  const lines = events.map((e) => `  checkout ${e.checkoutId ?? '?'} ${FELL_DUE[e.type ?? ''] ?? e.type ?? 'event'}`)
  return [`Fell due on the way (${events.length}):`, ...lines, `Its webhooks, with their outcomes: ${hints.webhookDeliveries()}`].join('\n')
}
