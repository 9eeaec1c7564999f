/**
 * `smoke --dry-run`: the plan of a run, from the steps' declarations, with nothing sent. The
 * expected steps are computed from the same declarations the run uses, never counted by hand.
 */
import {describe, expect, it} from 'vitest'

import ProfileAdd from '../../src/commands/profile/add.js'
import Smoke from '../../src/commands/smoke.js'
import {checkoutSteps} from '../../src/runtime/smoke/checkout-steps.js'
import {healthSteps} from '../../src/runtime/smoke/health-steps.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {isolatedWithMockedServices, runCommand} from '../helpers/command.js'

const harness = isolatedWithMockedServices()

const declared = [...healthSteps({group: 'demo-clinic'}), ...checkoutSteps(undefined)]

describe('opsctl smoke --dry-run', () => {
  it('--sandbox lists every step and its request, starts no sandbox, sends nothing, exits 0', async () => {
    const r = await runCommand(Smoke, ['--sandbox', '--dry-run', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const plan = JSON.parse(r.stdout)
    expect(plan).toMatchObject({dryRun: true, target: 'an embedded sandbox (not started: --dry-run)'})
    expect(plan.steps.map((s: {name: string; operation: string}) => [s.name, s.operation])).toEqual(declared.map((s) => [s.name, s.operation]))
    // on a sandbox every step runs, the ones that need a buyer or the clock included
    expect(plan.steps.filter((s: {runs: string}) => s.runs !== 'run')).toEqual([])
    const refund = plan.steps.find((s: {operation: string}) => s.operation === 'refundCheckout')
    expect(refund.request).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1:{port}/checkout/v1/checkouts/{checkoutId}/refunds',
      curl: `curl -sS -X POST 'http://127.0.0.1:{port}/checkout/v1/checkouts/{checkoutId}/refunds' \\\n  -u "$OPSCTL_CHECKOUT_SECRET_KEY:"`,
    })
    expect(r.stdout).not.toContain(SANDBOX_KEYS.secretKey)
    expect(harness.services.calls()).toEqual([])
  })

  it('without --json, prints one row per step on stdout and says on stderr that nothing was sent', async () => {
    const r = await runCommand(Smoke, ['--sandbox', '--dry-run', '--service', 'health', '--output', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    const rows = r.stdout.trim().split('\n')
    expect(rows[0]).toBe('suite,name,operation,request.method,request.url,runs')
    const health = declared.filter((s) => s.suite === 'health')
    expect(rows.slice(1).map((row) => row.split(',')[2])).toEqual(health.map((s) => s.operation))
    expect(r.stderr).toContain(`Smoke, dry run: ${health.length} steps against an embedded sandbox (not started: --dry-run); nothing was sent`)
    expect(harness.services.calls()).toEqual([])
  })

  it('against a production profile: its URLs, and the sandbox-only steps marked as skipped', async () => {
    const add = await runCommand(ProfileAdd, [
      'staging',
      '--env',
      'production',
      '--health-url',
      'https://health.example.com',
      '--checkout-url',
      'https://pay.example.com/checkout',
      '--public-key',
      'pk-live-Aa11Bb22',
    ])
    expect(add.code, add.stderr).toBe(0)
    const r = await runCommand(Smoke, ['--dry-run', '--profile', 'staging', '--service', 'checkout', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const {steps, target} = JSON.parse(r.stdout)
    expect(target).toBe('profile staging (production)')
    const skipped = steps.filter((s: {runs: string}) => s.runs !== 'run').map((s: {operation: string}) => s.operation)
    expect(skipped).toEqual(declared.filter((s) => s.suite === 'checkout' && s.sandboxOnly).map((s) => s.operation))
    expect(steps.find((s: {operation: string}) => s.operation === 'initiateCheckout').request.url).toBe(
      'https://pay.example.com/checkout/v1/checkouts',
    )
    expect(r.stdout).not.toContain('pk-live-Aa11Bb22')
    expect(harness.services.calls()).toEqual([])
  })
})
