import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox} from '../../runtime/sandbox-control.js'
import {exportState, type StateSummary} from '../../runtime/sandbox-state.js'

export default class SandboxExport extends BaseCommand<typeof SandboxExport> {
  static override requiresSandbox = {why: 'sandbox export reads the whole state of an embedded sandbox'}
  static override description = `Write the whole state of the sandbox the profile points at to a JSON file.

Users (with password hashes, never passwords), sessions (as digests), events, plans, ACT results, group configs, checkouts, refunds, webhooks and the page customization: a fixture to check into a repository and load into another sandbox with "sandbox import". The file is written with mode 0600.`
  static override examples = ['<%= config.bin %> sandbox export fixtures/sandbox.json', '<%= config.bin %> sandbox export state.json --json']
  static override args = {
    file: Args.string({description: 'JSON file to write (replaced if it exists)', required: true}),
  }

  protected async execute(): Promise<{file: string} & Partial<StateSummary>> {
    const {file} = this.args
    const sandbox = await localSandbox((await this.profile()).profile.health.baseUrl, this.configDir)
    const summary = await exportState(createTransport(this.clientOptions()), sandbox, file, this.dryRun)
    if (!summary) return {file}
    const result = {file, ...summary}
    return result
  }
}
