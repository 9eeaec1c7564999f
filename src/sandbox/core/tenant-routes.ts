/**
 * `/__sandbox/tenants`: create, list and delete tenants (core/tenants.ts). Control routes, so the
 * control guard asks for the token; served only at the sandbox's own (unprefixed) control plane,
 * never under a tenant's `/t/<id>/__sandbox/`.
 */
import type {FastifyInstance, FastifyRequest} from 'fastify'

import type {SandboxModule} from '../types.js'
import type {Tenant} from './tenant-runtime.js'
import type {TenantRecord, Tenants} from './tenants.js'

import {SANDBOX_MAX_TENANT_TTL_SECONDS as MAX_TTL_SECONDS} from '../../services/sandbox-defaults.js'
import {isTenantId, tenantPath} from './tenant-ids.js'
import {TenantLimitError} from './tenants.js'

interface TenantDeps {
  /** each service's base URL in a tenant is the tenant's path and the module's prefix */
  modules: readonly SandboxModule[]
  tenants: Tenants
  tenantOf(request: FastifyRequest): Tenant
  /** demo data, as `--seed` gives the default tenant */
  seed(tenant: Tenant): Promise<void>
}

/** What a tenant's clients are given: each service's base URL (`<service>BaseUrl`) on the origin the caller reached (its Host, which the control guard checked). */
function describe(request: FastifyRequest, modules: readonly SandboxModule[], record: TenantRecord, tenant: Tenant | undefined) {
  const base = `${new URL(`${request.protocol}://${request.headers.host}`).origin}${tenantPath(record.id)}`
  return {
    id: record.id,
    ...Object.fromEntries(modules.map((m) => [`${m.service.name}BaseUrl`, base + m.prefix])),
    clock: tenant?.clock.now().toISOString(),
    createdAt: record.createdAt,
    seeded: record.seeded,
    ...(record.expiresAt ? {expiresAt: record.expiresAt} : {}),
  }
}

const failure = (statusCode: number, message: string) => Object.assign(new Error(message), {statusCode})

export function registerTenantRoutes(app: FastifyInstance, deps: TenantDeps): void {
  const {tenants} = deps
  const ownPlane = (request: FastifyRequest) => {
    if (deps.tenantOf(request) !== tenants.defaultTenant) throw failure(404, 'Tenants are managed at the sandbox\'s own /__sandbox/tenants, not under a tenant')
  }

  /** `{"seed": true}` for demo data, `{"ttlSeconds": 3600}` for a tenant that expires. Answers the keys, the one time they are shown. */
  app.post('/__sandbox/tenants', async (request, reply) => {
    ownPlane(request)
    const body = (request.body ?? {}) as {seed?: unknown; ttlSeconds?: unknown}
    if (body.seed !== undefined && typeof body.seed !== 'boolean') throw failure(400, 'Expected {"seed": true|false}')
    const ttl = body.ttlSeconds
    if (ttl !== undefined && !(typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 1 && ttl <= MAX_TTL_SECONDS)) {
      throw failure(400, `"ttlSeconds" must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS} (30 days)`)
    }

    let created
    try {
      created = await tenants.create({now: new Date(), seed: deps.seed, seeded: body.seed === true, ...(ttl === undefined ? {} : {ttlMs: ttl * 1000})})
    } catch (error) {
      if (error instanceof TenantLimitError) throw failure(409, error.message)
      throw error
    }

    return reply.code(201).send({...describe(request, deps.modules, created.record, created.tenant), ...created.keys})
  })

  app.get('/__sandbox/tenants', async (request) => {
    ownPlane(request)
    const records = await tenants.records()
    return {tenants: await Promise.all(records.map(async (record) => describe(request, deps.modules, record, await tenants.get(record.id))))}
  })

  app.delete<{Params: {tenantId: string}}>('/__sandbox/tenants/:tenantId', async (request) => {
    ownPlane(request)
    const {tenantId} = request.params
    if (!isTenantId(tenantId)) throw failure(400, `Not a tenant id: ${JSON.stringify(tenantId)} (tn_ and 16 hex digits)`)
    if (!(await tenants.delete(tenantId))) throw failure(404, `No tenant ${tenantId} on this sandbox`)
    return {deleted: tenantId}
  })
}
