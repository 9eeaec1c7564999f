import {BaseCommand} from '../../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../../cli/checkout/columns.js'
import {type View} from '../../../cli/output/view.js'
import {sandboxUrlFlag, tenantSandbox} from '../../../cli/sandbox-tenant-target.js'
import {createTransport} from '../../../http/create-transport.js'
import {listTenants, type TenantInfo} from '../../../runtime/sandbox-tenants.js'

export default class SandboxTenantList extends BaseCommand<typeof SandboxTenantList> {
  static override description = `List the tenants of a sandbox: ids, base URLs, clocks (never their keys).

The sandbox is the origin of the profile's sandbox, or --sandbox-url. The default tenant (the sandbox's own URLs) is not listed, nor a tenant whose --ttl has run out.`
  static override examples = [
    '<%= config.bin %> sandbox tenant list',
    '<%= config.bin %> sandbox tenant list --sandbox-url http://127.0.0.1:5010 --json',
  ]
  static override flags = {...sandboxUrlFlag}

  static override view: View = {
    columns: ['id', 'healthBaseUrl', 'checkoutBaseUrl', 'clock', 'createdAt', 'expiresAt', 'seeded'],
    // CI copies the tenant id (`tenant delete`) and reads its clock; the base URLs are in its profile.
    layout: {
      checkoutBaseUrl: {priority: 3},
      clock: {priority: 1},
      createdAt: {priority: 3},
      expiresAt: {priority: 2},
      healthBaseUrl: {priority: 2},
      id: {kind: 'id', priority: 1},
      seeded: {priority: 2},
    },
    list: 'tenants',
    // a tenant's clock is what its checkout windows are read on: the checkout zone, as sandbox clock shows it
    zone: CHECKOUT_ZONE,
  }

  protected async execute(): Promise<{tenants: TenantInfo[]}> {
    const sandbox = await tenantSandbox(this.flags['sandbox-url'], () => this.profile(), this.configDir)
    const tenants = await listTenants(createTransport(this.clientOptions()), sandbox)
    // Two clocks side by side: said which is which, since a moved clock is days ahead of real time.
    if (tenants.length > 0) this.note("clock: the tenant's own clock (moved by sandbox clock); createdAt, expiresAt: real time")
    return {tenants}
  }
}
