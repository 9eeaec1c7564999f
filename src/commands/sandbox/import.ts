import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {requireConsentPossible} from '../../cli/consent.js'
import {changeFlags} from '../../cli/flags.js'
import {askConfirm} from '../../cli/prompt.js'
import {UsageError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox} from '../../runtime/sandbox-control.js'
import {importState, readStateFile, type StateSummary} from '../../runtime/sandbox-state.js'

export default class SandboxImport extends BaseCommand<typeof SandboxImport> {
  static override baseFlags = changeFlags
  static override requiresSandbox = {why: 'sandbox import replaces the whole state of an embedded sandbox'}
  static override description = `Replace the whole state of the sandbox the profile points at with a JSON file.

The file is one written by "sandbox export" (or a --state file of the JSON format of earlier versions), at most 256 MiB, counted as it is read (a pipe or FIFO works too; one that goes on past 256 MiB is refused, as is a file that is not UTF-8 text). Everything the sandbox held is replaced, all or nothing: the sandbox checks every record before it changes anything, and a bad one is named by its path (exit 2, the state unchanged). The clock is not part of the file. Sign-in sessions in the file are dropped (everyone signs in again), so an export of one tenant imported into another lets none of the first one's cookies in; --keep-sessions keeps them (restoring a tenant's own export). It asks first in a terminal; without one, pass --yes.`
  static override examples = [
    '<%= config.bin %> sandbox import fixtures/sandbox.json',
    '<%= config.bin %> sandbox import fixtures/sandbox.json --yes',
    '<%= config.bin %> sandbox import backup.json --keep-sessions \\\n  --yes    # its own export: users stay signed in',
  ]
  static override flags = {
    'keep-sessions': Flags.boolean({description: "keep the file's sign-in sessions (by default everyone signs in again)"}),
  }
  static override args = {
    file: Args.string({description: 'JSON file written by sandbox export', required: true}),
  }

  protected async execute(): Promise<{file: string} & Partial<StateSummary>> {
    const {file} = this.args
    // The file first: bad input is refused before anything about the sandbox is looked up.
    const state = await readStateFile(file)
    const sandbox = await localSandbox((await this.profile()).profile.health.baseUrl, this.configDir)
    const {origin} = sandbox
    const where = sandbox.tenant ? `tenant ${sandbox.tenant} of the sandbox at ${origin}` : `the sandbox at ${origin}`
    const action = `Replacing the whole state of ${where}`
    requireConsentPossible({dryRun: this.dryRun, yes: this.flags.yes}, action)
    if (!this.dryRun && !this.flags.yes && !(await askConfirm(`Replace the whole state of ${where} with ${file}?`))) {
      throw new UsageError('Not confirmed; nothing was sent')
    }

    const summary = await importState(createTransport(this.clientOptions()), sandbox, file, state, {keepSessions: this.flags['keep-sessions']})
    if (this.dryRun) return {file}
    const result = {file, ...summary}
    return result
  }
}
