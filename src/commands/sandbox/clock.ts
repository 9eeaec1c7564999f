import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox, sandboxControl} from '../../runtime/sandbox-control.js'
import {advanceProblem, clockTimeProblem} from '../../services/clock-bounds.js'
import {parseDuration} from '../../services/duration.js'

export default class SandboxClock extends BaseCommand<typeof SandboxClock> {
  static override requiresSandbox = {why: 'sandbox clock moves the clock of an embedded sandbox'}
  static override description = `Show or move the clock of the sandbox the profile points at.

Every sandbox rule reads this clock: the void window, session expiry, checkout expiry, metric ranges.

The clock moves forward only (a --set before its now is refused, exit 2; "sandbox reset" starts the tenant over), and what falls due on the way happens, in order: an unpaid checkout expires an hour after it was created (CHECKOUT_DROPOUT), a failed webhook delivery is retried 5, 15 and 45 minutes after each failure.`
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

    const result = await sandboxControl(transport, sandbox, body ? 'POST' : 'GET', 'clock', body)
    return {now: result.now}
  }
}
