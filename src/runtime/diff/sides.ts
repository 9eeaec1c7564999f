/**
 * The two sides `sandbox diff` compares. Theirs: the profile's services, with its keys and its
 * health session; an opsctl sandbox on this machine when the profile is a sandbox profile on
 * loopback whose control token is known. Ours: a sandbox of our own that nothing else uses (an
 * embedded one, or a tenant made for the run), with a user of its own.
 */
import type {Transport} from '../../http/transport.js'

import {ApiError} from '../../errors.js'
import {ServiceClient} from '../../http/client.js'
import {isLoopback} from '../../http/url.js'
import {checkoutTarget, healthTarget, type ResolvedProfile} from '../../profiles/resolve.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {healthOps} from '../../services/health/operations.js'
import {SANDBOX_KEYS, sandboxBaseUrls} from '../../services/sandbox-defaults.js'
import {removeOnSignal} from '../remove-on-signal.js'
import {localSandbox} from '../sandbox-control.js'
import {createTenant, deleteTenant, tenantCheckoutTarget} from '../sandbox-tenants.js'
import {ourSession} from './health-probes.js'
import {type DiffSide} from './probe.js'

export async function theirSide(resolved: ResolvedProfile, transport: Transport, configDir: string): Promise<DiffSide> {
  const {name, profile} = resolved
  const health = healthTarget(resolved)
  const local = profile.env === 'sandbox' && isLoopback(new URL(health.baseUrl).hostname)
  const sandbox = local ? await localSandbox(health.baseUrl, configDir) : undefined
  return {
    label: `profile ${name} (${profile.env})`,
    name: 'theirs',
    // Without its token, its clock cannot be moved: probes that need it are skipped.
    sandbox: sandbox?.token ? sandbox : undefined,
    targets: {checkout: checkoutTarget(resolved), health},
    transport,
  }
}

/**
 * The profile's credentials still open its services: an expired session or a revoked key is an
 * error to fix (exit 3), not a difference of every probe that uses it. Any other answer is left to
 * the probes to compare.
 */
export async function checkCredentials(side: DiffSide, services: readonly string[]): Promise<void> {
  const client = (service: string) => new ServiceClient({target: side.targets[service], transport: side.transport})
  const checks = [
    services.includes('health') && side.targets.health.session ? () => client('health').call(healthOps.getUser) : undefined,
    services.includes('checkout') ? () => client('checkout').call(checkoutOps.listWebhooks) : undefined,
  ]
  for (const check of checks) {
    await check?.().catch((error: unknown) => {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) throw error
    })
  }
}

/** Our side on a sandbox we started for this run (`origin`, control `token`): its default tenant is ours alone. */
export async function embeddedSide(origin: string, token: string, transport: Transport, withUser: boolean): Promise<DiffSide> {
  const urls = sandboxBaseUrls(origin)
  const profileName = 'embedded sandbox'
  const health = {baseUrl: urls.health, profileName, service: 'health'}
  return {
    disposable: true,
    label: `an embedded sandbox at ${origin}`,
    name: 'ours',
    sandbox: {origin, token},
    targets: {
      checkout: {baseUrl: urls.checkout, profileName, service: 'checkout', ...SANDBOX_KEYS},
      health: withUser ? {...health, session: await ourSession(health, transport)} : health,
    },
    transport,
  }
}

/** Our tenant outlives no run: deleted at the end, on Ctrl-C or SIGTERM, and when the process is killed outright it expires by itself after this. */
export const DIFF_TENANT_TTL_SECONDS = 3600

/**
 * Our side on a tenant made for this run on the sandbox at `origin` (its control token from
 * OPSCTL_SANDBOX_TOKEN or the file `sandbox start` wrote). `remove` deletes the tenant; so does
 * Ctrl-C or SIGTERM before it (../remove-on-signal.ts), and it expires by itself after an hour.
 */
export async function tenantSide(
  origin: string,
  transport: Transport,
  configDir: string,
  withUser: boolean,
): Promise<{side: DiffSide; remove(): Promise<void>}> {
  const sandbox = await localSandbox(origin, configDir)
  const tenant = await createTenant(transport, sandbox, false, DIFF_TENANT_TTL_SECONDS)
  const profileName = `tenant ${tenant.id}`
  const health = {baseUrl: tenant.healthBaseUrl, profileName, service: 'health'}
  const deleteIt = () => deleteTenant(transport, sandbox, tenant.id)
  const onSignal = removeOnSignal(deleteIt)
  const remove = async () => {
    onSignal()
    await deleteIt()
  }

  try {
    return {
      remove,
      side: {
        disposable: true,
        label: `tenant ${tenant.id} of the sandbox at ${sandbox.origin}`,
        name: 'ours',
        sandbox: {...sandbox, tenant: tenant.id},
        targets: {
          checkout: tenantCheckoutTarget(tenant),
          health: withUser ? {...health, session: await ourSession(health, transport)} : health,
        },
        transport,
      },
    }
  } catch (error) {
    await remove().catch(() => {})
    throw error
  }
}
