/**
 * Tenants' ids and where their URLs live (core/tenants.ts keeps the tenants themselves). A tenant
 * is served under `/t/<id>` on the sandbox origin: its health base URL is `<origin>/t/<id>`, its
 * checkout base URL `<origin>/t/<id>/checkout`, its control routes `<origin>/t/<id>/__sandbox/...`.
 * The default tenant is the unprefixed origin, what a sandbox without tenants serves.
 */
import {randomBytes} from 'node:crypto'

import {SANDBOX_TENANT_ID} from '../../services/sandbox-defaults.js'

/** The tenant of the unprefixed URLs: its rows carry this id in the database. */
export const DEFAULT_TENANT = 'default'

export function isTenantId(text: string): boolean {
  return SANDBOX_TENANT_ID.test(text)
}

export function newTenantId(): string {
  return `tn_${randomBytes(8).toString('hex')}`
}

/** The path a tenant's URLs start with: '' for the default tenant, `/t/<id>` for the others. */
export function tenantPath(tenant: string): string {
  return tenant === DEFAULT_TENANT ? '' : `/t/${tenant}`
}

/** `/t/<id>/rest?query` -> the tenant and `/rest?query`; undefined for a URL of the default tenant or a malformed id. */
export function splitTenantUrl(url: string): undefined | {tenant: string; url: string} {
  const match = /^\/t\/([^/?#]+)(.*)$/s.exec(url)
  if (!match || !isTenantId(match[1])) return undefined
  const rest = match[2]
  return {tenant: match[1], url: rest.startsWith('/') ? rest : `/${rest}`}
}
