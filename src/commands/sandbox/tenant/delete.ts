import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../../cli/base-command.js'
import {requireConsentPossible} from '../../../cli/consent.js'
import {changeFlags} from '../../../cli/flags.js'
import {askConfirm} from '../../../cli/prompt.js'
import {parseTenantId, sandboxUrlFlag, tenantSandbox} from '../../../cli/sandbox-tenant-target.js'
import {DeclinedError} from '../../../errors.js'
import {createTransport} from '../../../http/create-transport.js'
import {deleteTenant} from '../../../runtime/sandbox-tenants.js'

export default class SandboxTenantDelete extends BaseCommand<typeof SandboxTenantDelete> {
  static override baseFlags = changeFlags
  static override description = `Delete a tenant of a sandbox and everything it holds.

Its users, events, checkouts, webhooks, clock and keys are deleted; its URLs answer 404 from then on. Profiles saved for it are left as they are (remove them with "profile remove"). It asks first in a terminal; without one, pass --yes (else exit 2, nothing sent). A tenant the sandbox does not have is exit 4.`
  static override examples = [
    '<%= config.bin %> sandbox tenant delete tn_3f9c2a7b1d4e5f60',
    '<%= config.bin %> sandbox tenant delete tn_3f9c2a7b1d4e5f60 --yes',
  ]
  static override args = {tenantId: Args.string({description: 'tenant id (tn_ and 16 hex digits)', parse: parseTenantId, required: true})}
  static override flags = {...sandboxUrlFlag}

  protected async execute(): Promise<{deleted: string}> {
    const {tenantId} = this.args
    const action = `Deleting tenant ${tenantId}`
    requireConsentPossible({dryRun: this.dryRun, yes: this.flags.yes}, action)
    const sandbox = await tenantSandbox(this.flags['sandbox-url'], () => this.profile(), this.configDir)
    if (!this.dryRun && !this.flags.yes && !(await askConfirm(`Delete tenant ${tenantId} of the sandbox at ${sandbox.origin}, and everything it holds?`))) {
      throw new DeclinedError('Not confirmed; nothing was sent')
    }

    return deleteTenant(createTransport(this.clientOptions()), sandbox, tenantId)
  }
}
