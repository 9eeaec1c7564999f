import {BaseCommand} from '../../cli/base-command.js'
import {requireConsentPossible} from '../../cli/consent.js'
import {changeFlags} from '../../cli/flags.js'
import {askConfirm} from '../../cli/prompt.js'
import {DeclinedError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox, sandboxControl} from '../../runtime/sandbox-control.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static override requiresSandbox = {why: 'sandbox reset starts a sandbox tenant over'}
  static override baseFlags = changeFlags
  static override description = `Start the sandbox tenant the profile points at over: its data, due work and delivery log emptied, its clock back at the real time.

The sandbox clock moves forward only; this is how a tenant goes back. Other tenants are untouched. It asks first in a terminal; without one, pass --yes (else exit 2, nothing sent).`
  static override examples = ['<%= config.bin %> sandbox reset --yes', '<%= config.bin %> sandbox reset -p ci-job-1 --yes']

  protected async execute(): Promise<{reset: boolean}> {
    const action = 'Resetting the sandbox tenant'
    requireConsentPossible({dryRun: this.dryRun, yes: this.flags.yes}, action)
    const sandbox = await localSandbox((await this.profile()).profile.health.baseUrl, this.configDir)
    const which = sandbox.tenant ? `tenant ${sandbox.tenant}` : 'the default tenant'
    if (!this.dryRun && !this.flags.yes && !(await askConfirm(`Reset ${which} of the sandbox at ${sandbox.origin}: delete its data and put its clock back to the real time?`))) {
      throw new DeclinedError('Not confirmed; nothing was sent')
    }

    return sandboxControl(createTransport(this.clientOptions()), sandbox, 'POST', 'reset', {})
  }
}
