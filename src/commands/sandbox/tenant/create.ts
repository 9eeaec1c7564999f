import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../../cli/checkout/columns.js'
import {type View} from '../../../cli/output/view.js'
import {sandboxUrlFlag, tenantSandbox} from '../../../cli/sandbox-tenant-target.js'
import {UsageError} from '../../../errors.js'
import {createTransport} from '../../../http/create-transport.js'
import {PROFILE_NAME} from '../../../profiles/schema.js'
import {type CreatedTenant, createTenant, tenantProfile} from '../../../runtime/sandbox-tenants.js'
import {parseDuration} from '../../../services/duration.js'
import {SANDBOX_MAX_TENANT_TTL_SECONDS as MAX_TTL_SECONDS, SANDBOX_MAX_TENANTS} from '../../../services/sandbox-defaults.js'

/** --ttl as whole seconds, 1s to 30 days; anything else is refused before sending. */
function ttlOf(text: string): number {
  const ms = parseDuration(text)
  if (ms === undefined || ms < 1000 || ms > MAX_TTL_SECONDS * 1000 || ms % 1000 !== 0) {
    throw new UsageError(`--ttl must be a duration of whole seconds from 1s to 30d, such as 90s, 2h or 1d, got ${text}; nothing was sent`)
  }

  return ms / 1000
}

export default class SandboxTenantCreate extends BaseCommand<typeof SandboxTenantCreate> {
  static override description = `Create an isolated tenant on a sandbox; print its base URLs, keys and clock.

A tenant has its own users, sessions, events, plans, groups, checkouts, refunds, webhooks, page customization, clock, faults and seeded data: nothing done in one is visible from another (another tenant's keys are refused with 401 on its URLs, its ids are 404). Its URLs are the sandbox's under /t/<id>: health base URL <origin>/t/<id>, checkout base URL <origin>/t/<id>/checkout. With a profile of those URLs, "sandbox clock", "sandbox export", "sandbox import", "checkout pay", "smoke" and "scenario run" act on the tenant alone.

The keys are shown this once (the sandbox keeps only their digests): --save-profile NAME saves them in a new profile (profiles.json, mode 0600). The sandbox is the origin of the profile's sandbox, or --sandbox-url; creating needs its control token, as every control route does. A sandbox holds at most ${SANDBOX_MAX_TENANTS} tenants besides its default one (exit 5 past that).

--ttl makes a tenant that expires (real time, whatever its clock says): from then on its URLs are refused and the sandbox removes it with all its data. A CI job should give its tenant a TTL a little longer than the job's own timeout (say --ttl 2h for a job that times out after an hour), so a job cancelled before "sandbox tenant delete" leaks nothing.`
  static override examples = [
    '<%= config.bin %> sandbox tenant create --save-profile ci-job-1\n<%= config.bin %> smoke -p ci-job-1',
    '<%= config.bin %> sandbox tenant create --seed --json',
    '<%= config.bin %> sandbox tenant create --ttl 2h --save-profile ci-$CI_JOB_ID',
    '<%= config.bin %> sandbox tenant create --sandbox-url http://127.0.0.1:5010 \\\n  --save-profile team',
  ]
  static override flags = {
    seed: Flags.boolean({description: 'give the tenant the demo data of "sandbox start --seed" (demo users, paid checkouts)'}),
    ttl: Flags.string({description: 'remove the tenant this long after its creation (whole seconds, 1s to 30d): 90s, 2h, 1d', helpValue: '<duration>'}),
    'save-profile': Flags.string({description: 'save a sandbox profile of this name for the tenant (its URLs and keys); an existing name is refused', helpValue: '<name>'}),
    ...sandboxUrlFlag,
  }

  // The secret key whole only in --json (and in the profile --save-profile writes): a table lands in CI logs.
  static override view: View = {columns: ['id', 'healthBaseUrl', 'checkoutBaseUrl', 'publicKey', 'secretKey', 'clock', 'expiresAt', 'profile'], masked: ['secretKey'], zone: CHECKOUT_ZONE}

  protected async execute(): Promise<CreatedTenant & {profile?: string}> {
    const {flags} = this
    const name = flags['save-profile']
    const store = name === undefined ? undefined : await this.profileStore()
    if (name !== undefined) {
      if (!PROFILE_NAME.test(name)) throw new UsageError(`Invalid profile name "${name}": use letters, digits, ".", "_" or "-"; nothing was sent`)
      if (store!.get(name)) throw new UsageError(`Profile ${name} exists; give --save-profile another name; nothing was sent`)
    }

    const ttlSeconds = flags.ttl === undefined ? undefined : ttlOf(flags.ttl)
    const sandbox = await tenantSandbox(flags['sandbox-url'], () => this.profile(), this.configDir)
    const tenant = await createTenant(createTransport(this.clientOptions()), sandbox, flags.seed, ttlSeconds)
    if (!store || name === undefined) return tenant
    // Another process may have saved that name meanwhile: not replaced (exit 2), the tenant stays (its id is printed).
    store.set(name, tenantProfile(sandbox.origin, tenant), {replace: false})
    await store.save()
    return {...tenant, profile: name}
  }
}
