/**
 * Which sandbox the `sandbox tenant` commands manage: the one `--sandbox-url` names, else the
 * origin of the sandbox profile in use (a tenant's profile included: tenants are managed at the
 * sandbox's own control plane). Control calls go to loopback only.
 */
import * as Flags from '@oclif/core/flags'

import type {ResolvedProfile} from '../profiles/resolve.js'

import {UsageError} from '../errors.js'
import {localSandbox, type SandboxControlTarget} from '../runtime/sandbox-control.js'
import {SANDBOX_TENANT_ID} from '../services/sandbox-defaults.js'

export const sandboxUrlFlag = {
  'sandbox-url': Flags.string({
    description: "the sandbox's origin, e.g. http://127.0.0.1:4010 (default: the origin of the profile's sandbox)",
    helpValue: '<url>',
  }),
}

export async function tenantSandbox(
  sandboxUrl: string | undefined,
  profile: () => Promise<ResolvedProfile>,
  configDir: string,
): Promise<SandboxControlTarget> {
  if (sandboxUrl !== undefined) {
    if (!/^http:\/\/[^/?#]+\/?$/.test(sandboxUrl)) {
      throw new UsageError(`--sandbox-url must be a sandbox's origin such as http://127.0.0.1:4010, got ${JSON.stringify(sandboxUrl)}; nothing was sent`)
    }

    return localSandbox(sandboxUrl, configDir)
  }

  const {name, profile: p} = await profile()
  if (p.env !== 'sandbox') {
    throw new UsageError(`sandbox tenant manages the tenants of a sandbox; profile ${name} is ${p.env}: pass --sandbox-url or a sandbox profile; nothing was sent`)
  }

  return localSandbox(p.health.baseUrl, configDir)
}

/** A tenant id argument: `tn_` and 16 hex digits, refused while argv is read otherwise (exit 2, nothing sent). */
export async function parseTenantId(value: string): Promise<string> {
  if (!SANDBOX_TENANT_ID.test(value)) throw new UsageError(`Invalid tenant id ${JSON.stringify(value)}: a tenant id is tn_ and 16 hex digits; nothing was sent`)
  return value
}
