/** `opsctl sandbox tenant create|list|delete` in-process, against the real sandbox in this process: exit codes, JSON shapes, what is sent. */
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import SandboxClock from '../../src/commands/sandbox/clock.js'
import SandboxTenantCreate from '../../src/commands/sandbox/tenant/create.js'
import SandboxTenantDelete from '../../src/commands/sandbox/tenant/delete.js'
import SandboxTenantList from '../../src/commands/sandbox/tenant/list.js'
import {SANDBOX_MAX_TENANTS} from '../../src/services/sandbox-defaults.js'
import {isolate, runJson as json, runCommand as run, useProduction} from '../helpers/command.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'

const HOUR = 3_600_000

describe('opsctl sandbox tenant', () => {
  let sandbox: InProcessSandbox
  let user: {dir: string; cleanup(): void}
  beforeAll(async () => {
    sandbox = await inProcessSandbox()
  })
  afterAll(() => sandbox.close())
  beforeEach(() => {
    // a user with the token and the origin it is for, and no service URL: the profiles decide where commands go
    user = isolate()
    process.env.OPSCTL_SANDBOX_TOKEN = sandbox.token
    process.env.OPSCTL_SANDBOX_URL = sandbox.origin
  })
  afterEach(() => user.cleanup())

  const tenantIds = async () => (await sandbox.running.tenants.records()).map((r) => r.id)

  it('create --save-profile prints the URLs, keys and clock, and saves a 0600 profile whose commands act on the tenant alone', async () => {
    const created = await json(SandboxTenantCreate, ['--sandbox-url', sandbox.origin, '--save-profile', 'job-1'])
    expect(created).toEqual({
      id: expect.stringMatching(/^tn_[\da-f]{16}$/),
      healthBaseUrl: `${sandbox.origin}/t/${created.id}`,
      checkoutBaseUrl: `${sandbox.origin}/t/${created.id}/checkout`,
      publicKey: expect.stringMatching(/^pk-tenant-/),
      secretKey: expect.stringMatching(/^sk-tenant-/),
      clock: expect.any(String),
      createdAt: expect.any(String),
      seeded: false,
      profile: 'job-1',
    })
    const file = join(user.dir, 'profiles.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles['job-1']).toMatchObject({
      env: 'sandbox',
      health: {baseUrl: created.healthBaseUrl},
      checkout: {baseUrl: created.checkoutBaseUrl, publicKey: created.publicKey, secretKey: created.secretKey},
    })

    const moved = await json(SandboxClock, ['-p', 'job-1', '--advance', '48h'])
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(47 * HOUR)
    expect(Math.abs(sandbox.running.ctx.clock.now().getTime() - Date.now())).toBeLessThan(HOUR)

    const checkout = await json(CheckoutCreate, ['-p', 'job-1', '--amount', '10.00'])
    // the buyer pays on the tenant's own page, whose form posts back to the tenant
    const paid = await run(CheckoutPay, ['-p', 'job-1', checkout.checkoutId])
    expect(paid.code, paid.stderr).toBe(0)
    expect((await json(CheckoutGet, ['-p', 'job-1', checkout.checkoutId])).paymentStatus).toBe('PAYMENT_SUCCESS')
    // the default tenant has no such checkout
    const elsewhere = await run(CheckoutGet, [checkout.checkoutId], {env: {OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl, OPSCTL_HEALTH_URL: sandbox.healthUrl}})
    expect(elsewhere.code).toBe(4)
  })

  it('create refuses a taken or malformed profile name, a production profile without --sandbox-url and a non-local URL, with exit 2, creating nothing', async () => {
    await json(SandboxTenantCreate, ['--sandbox-url', sandbox.origin, '--save-profile', 'taken'])
    const before = (await tenantIds())
    for (const argv of [
      ['--sandbox-url', sandbox.origin, '--save-profile', 'taken'],
      ['--sandbox-url', sandbox.origin, '--save-profile', 'no/slash'],
      ['--sandbox-url', 'http://example.com:4010'],
      ['--sandbox-url', `${sandbox.origin}/t/x`],
    ]) {
      const result = await run(SandboxTenantCreate, argv)
      expect([argv, result.code]).toEqual([argv, 2])
      expect(result.stderr).toContain('Error:')
    }

    await useProduction(user.dir, 'sk-live-secret')
    const production = await run(SandboxTenantCreate, [])
    expect(production.code).toBe(2)
    expect(production.stderr).toMatch(/is production.*--sandbox-url/)
    expect((await tenantIds())).toEqual(before)
  })

  it('list shows the tenants without their keys', async () => {
    const created = await json(SandboxTenantCreate, ['--sandbox-url', sandbox.origin, '--seed'])
    const {tenants} = await json(SandboxTenantList, ['--sandbox-url', sandbox.origin])
    const listed = tenants.find((t: {id: string}) => t.id === created.id)
    expect(listed).toEqual({id: created.id, healthBaseUrl: created.healthBaseUrl, checkoutBaseUrl: created.checkoutBaseUrl, clock: expect.any(String), createdAt: created.createdAt, seeded: true})
    const table = await run(SandboxTenantList, ['--sandbox-url', sandbox.origin])
    expect(table.stdout).toContain(created.id)
    expect(table.stdout).not.toContain(created.secretKey)
  })

  it('delete needs --yes without a terminal (exit 2, nothing sent), deletes with it, then answers exit 4; a malformed id is exit 2', async () => {
    const {id} = await json(SandboxTenantCreate, ['--sandbox-url', sandbox.origin])
    const unconfirmed = await run(SandboxTenantDelete, [id, '--sandbox-url', sandbox.origin])
    expect(unconfirmed.code).toBe(2)
    expect(unconfirmed.stderr).toContain('--yes')
    expect((await tenantIds())).toContain(id)

    expect(await json(SandboxTenantDelete, [id, '--sandbox-url', sandbox.origin, '--yes'])).toEqual({deleted: id})
    expect((await tenantIds())).not.toContain(id)
    expect((await run(SandboxTenantDelete, [id, '--sandbox-url', sandbox.origin, '--yes'])).code).toBe(4)
    for (const bad of ['tn_XYZ', '../tn_0000000000000000', '__proto__']) {
      const result = await run(SandboxTenantDelete, [bad, '--sandbox-url', sandbox.origin, '--yes'])
      expect([bad, result.code]).toEqual([bad, 2])
    }
  })

  it(`create past ${SANDBOX_MAX_TENANTS} tenants is refused with exit 5`, async () => {
    const room = SANDBOX_MAX_TENANTS - (await tenantIds()).length
    for (let i = 0; i < room; i++) await sandbox.control('tenants', {})
    const refused = await run(SandboxTenantCreate, ['--sandbox-url', sandbox.origin])
    expect(refused.code).toBe(5)
    expect(refused.stderr).toContain(`${SANDBOX_MAX_TENANTS} tenants`)
  })
})
