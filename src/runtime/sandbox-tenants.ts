/**
 * Tenants of a running sandbox (`sandbox tenant create|list|delete`), through its own control
 * routes `/__sandbox/tenants`: always the sandbox's, never a tenant's (`/t/<id>/__sandbox/...`).
 */
import type {ServiceTarget} from '../http/services.js'
import type {Transport} from '../http/transport.js'
import type {Profile} from '../profiles/schema.js'

import {HEALTH_API_VERSION} from '../services/health/client-module.js'
import {sandboxControl, type SandboxControlTarget} from './sandbox-control.js'

export interface TenantInfo {
  id: string
  healthBaseUrl: string
  checkoutBaseUrl: string
  /** the tenant's clock */
  clock?: string
  createdAt: string
  seeded: boolean
  /** when a tenant created with a TTL is removed */
  expiresAt?: string
}

/** A tenant as created: its keys, shown this once. */
export interface CreatedTenant extends TenantInfo {
  publicKey: string
  secretKey: string
}

const own = (sandbox: SandboxControlTarget): SandboxControlTarget => ({origin: sandbox.origin, token: sandbox.token})

/** Past the sandbox's cap on tenants (SANDBOX_MAX_TENANTS) it answers 409: a refusal, exit 5. */
export async function createTenant(transport: Transport, sandbox: SandboxControlTarget, seed: boolean, ttlSeconds?: number): Promise<CreatedTenant> {
  return (await sandboxControl(transport, own(sandbox), 'POST', 'tenants', {seed, ...(ttlSeconds === undefined ? {} : {ttlSeconds})})) as CreatedTenant
}

export async function listTenants(transport: Transport, sandbox: SandboxControlTarget): Promise<TenantInfo[]> {
  return ((await sandboxControl(transport, own(sandbox), 'GET', 'tenants')) as {tenants: TenantInfo[]}).tenants
}

/** A tenant the sandbox does not have is its 404: exit 4. */
export async function deleteTenant(transport: Transport, sandbox: SandboxControlTarget, id: string): Promise<{deleted: string}> {
  return (await sandboxControl(transport, own(sandbox), 'DELETE', `tenants/${id}`)) as {deleted: string}
}

/** A tenant's checkout service, with the keys it was created with. */
export function tenantCheckoutTarget(tenant: CreatedTenant): ServiceTarget {
  return {baseUrl: tenant.checkoutBaseUrl, profileName: `tenant ${tenant.id}`, publicKey: tenant.publicKey, secretKey: tenant.secretKey, service: 'checkout'}
}

/** A sandbox profile for a tenant: its base URLs (on the origin the CLI reached) and its keys. */
export function tenantProfile(sandboxOrigin: string, tenant: CreatedTenant): Profile {
  const base = `${sandboxOrigin}/t/${tenant.id}`
  return {
    env: 'sandbox',
    health: {baseUrl: base, apiVersion: HEALTH_API_VERSION},
    checkout: {baseUrl: `${base}/checkout`, publicKey: tenant.publicKey, secretKey: tenant.secretKey},
  }
}
