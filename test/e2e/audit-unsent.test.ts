/**
 * The audit log records every attempt at a change, also those that end before their request is
 * sent (refused for bad input, no --yes without a terminal, a read before the change failed), and
 * a damaged line in it never stops `audit list` or `checkout list`: in-process commands against
 * the real sandbox in this process.
 */
import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import AuditList from '../../src/commands/audit/list.js'
import CheckoutList from '../../src/commands/checkout/list.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import RefundCreate from '../../src/commands/refund/create.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import {paidCheckout} from '../helpers/checkout.js'
import {runJson as json, runCommand as run} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

const file = sandboxPerFile({clock: '2026-11-21T02:00:00Z'})

function auditLines(): Record<string, unknown>[] {
  const text = readFileSync(join(file.user.dir, 'audit.jsonl'), 'utf8')
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

describe('attempts that end before sending', () => {
  it('each leaves one audit line saying it was not sent and why, and nothing reaches the service', async () => {
    const checkoutId = await paidCheckout('25.00')
    const before = auditLines().length
    const attempts: [typeof CheckoutVoid | typeof RefundCreate | typeof WebhookRegister, string[], Record<string, unknown>][] = [
      [CheckoutVoid, [checkoutId, '--reason', 'duplicate'], {outcome: 'refused locally', code: 'consent-required', checkoutId, reason: 'duplicate'}],
      [CheckoutVoid, [checkoutId, '--yes'], {outcome: 'refused locally', code: 'invalid-input'}],
      [RefundCreate, [checkoutId, '--reason', 'broken', '--amount', '1.234', '--yes'], {outcome: 'refused locally', code: 'invalid-input', checkoutId, amount: {value: '1.234'}}],
      [RefundCreate, [checkoutId, '--reason', 'broken', '--yes'], {outcome: 'refused locally', code: 'invalid-input', checkoutId}],
      [CheckoutVoid, ['chk-not-there', '--reason', 'late', '--yes'], {outcome: 'not sent', checkoutId: 'chk-not-there', status: 404}],
      [WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'not a url'], {outcome: 'refused locally', code: 'invalid-input', operation: 'registerWebhook'}],
    ]
    for (const [i, [Cmd, argv, line]] of attempts.entries()) {
      const result = await run(Cmd, argv)
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).not.toBe(0)
      const lines = auditLines()
      expect(lines.length, argv.join(' ')).toBe(before + i + 1)
      expect(lines.at(-1), argv.join(' ')).toMatchObject({profile: 'sandbox', env: 'sandbox', message: expect.any(String), ...line})
    }

    // A --dry-run attempts nothing: no line.
    const dryRun = await run(CheckoutVoid, ['chk-any', '--reason', 'late', '--dry-run'])
    expect(dryRun.code, dryRun.stderr).toBe(0)
    expect(auditLines()).toHaveLength(before + attempts.length)

    // nothing was voided or refunded
    const voided = await run(CheckoutVoid, [checkoutId, '--reason', 'now for real', '--yes', '--json'])
    expect(voided.code, voided.stderr).toBe(0)
  })
})

describe('a damaged audit log', () => {
  it('checkout list and audit list skip a null line and a torn one with one warning naming their lines, and show the rest; an append under way is not damage', async () => {
    const checkoutId = await paidCheckout('30.00')
    const path = join(file.user.dir, 'audit.jsonl')
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n')
    writeFileSync(path, [...lines.slice(0, 1), 'null', ...lines.slice(1), '{"time": "2026-11-2'].join('\n') + '\n')
    // A last line without its newline is a writer's append under way: skipped, and no warning.
    appendFileSync(path, '{"time": "2026-12-0')

    const list = await run(CheckoutList, ['--json'])
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).checkouts.map((c: {checkoutId: string}) => c.checkoutId)).toContain(checkoutId)
    const warning = `Warning: skipped 2 damaged line(s) of ${path}: line 2 (not an entry (null)), line ${lines.length + 2} (not JSON (a torn write?)); the rest is shown\n`
    expect(list.stderr).toBe(warning)

    const audit = await json(AuditList, [])
    expect(audit.entries).toHaveLength(lines.length)
    const shown = await run(AuditList, [])
    expect(shown.code).toBe(0)
    expect(shown.stderr).toBe(warning)
  })
})
