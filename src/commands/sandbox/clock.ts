import {Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/base-command.js'
import {parseDuration} from '../../lib/duration.js'
import {UsageError} from '../../lib/errors.js'
import {sandboxControl, sandboxOrigin} from '../../lib/sandbox-control.js'

export default class SandboxClock extends BaseCommand<typeof SandboxClock> {
  static override description = `Show or move the clock of the sandbox the profile points at.

Every sandbox rule reads this clock: the void window, session expiry, checkout expiry, metric ranges.`
  static override examples = [
    '<%= config.bin %> sandbox clock',
    '<%= config.bin %> sandbox clock --advance 24h',
    '<%= config.bin %> sandbox clock --set 2026-11-21T15:59:59Z',
  ]
  static override flags = {
    set: Flags.string({description: 'set the clock to this ISO 8601 time', exclusive: ['advance']}),
    advance: Flags.string({description: 'move the clock forward (or back with a leading -) by a duration: 26h, 90m, 1d12h'}),
  }

  async run(): Promise<{now: string}> {
    const {flags} = this
    let body: undefined | {advance?: string; set?: string}
    if (flags.set !== undefined) {
      if (Number.isNaN(Date.parse(flags.set))) throw new UsageError(`--set must be an ISO 8601 time, got ${flags.set}`)
      body = {set: flags.set}
    } else if (flags.advance !== undefined) {
      if (parseDuration(flags.advance) === undefined)
        throw new UsageError(`--advance must be a duration such as 24h, 90m or 1d12h, got ${flags.advance}`)
      body = {advance: flags.advance}
    }

    const origin = sandboxOrigin((await this.profile()).profile.health.baseUrl)
    const result = body ? await sandboxControl(origin, 'POST', 'clock', body) : await sandboxControl(origin, 'GET', 'clock')
    await this.print({now: result.now})
    return {now: result.now}
  }
}
