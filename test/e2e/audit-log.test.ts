/**
 * The local audit log: several money and configuration changes through the CLI's commands
 * (in-process, test/helpers/command.ts, against the real sandbox in this process): applied,
 * refused by the service, refused by a rule before sending, answer lost and reconciled; then
 * `<config dir>/audit.jsonl` read back: one line per attempt with the right outcome (checkout
 * creation included), one more per reconciliation, nothing for reads, and no secret anywhere in
 * the file. test/e2e/merchant-history.test.ts covers the refused and declined money attempts in detail.
 */
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import AuditList from '../../src/commands/audit/list.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import CustomizeRemove from '../../src/commands/customize/remove.js'
import CustomizeSet from '../../src/commands/customize/set.js'
import RefundCreate from '../../src/commands/refund/create.js'
import SandboxClock from '../../src/commands/sandbox/clock.js'
import UsersCreate from '../../src/commands/users/create.js'
import WebhookDelete from '../../src/commands/webhook/delete.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import WebhookUpdate from '../../src/commands/webhook/update.js'
import {paidCheckout} from '../helpers/checkout.js'
import {runJson as json, runCommand as run, type Runnable} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

const START = '2026-11-21T02:00:00Z'
const PASSWORD = 'correct-horse-battery-9'
const CARD = '5123456789012346'

const file = sandboxPerFile({clock: START})

async function expectExit(Cmd: Runnable, argv: string[], code: number): Promise<void> {
  const result = await run(Cmd, argv)
  expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(code)
}

describe('audit log', () => {
  it('one line per money or configuration change, with its outcome, and no secret', async () => {
    // A health session in the profile, so there is one more secret that must not leak.
    const user = await run(
      UsersCreate,
      ['--type', 'patient', '--email', 'ana@example.com', '--given-name', 'Ana', '--family-name', 'Reyes', '--password-stdin'],
      {stdin: PASSWORD},
    )
    expect(user.code, user.stderr).toBe(0)
    const session: string = JSON.parse(readFileSync(join(file.user.dir, 'profiles.json'), 'utf8')).profiles.sandbox.health.session
    expect(session.length).toBeGreaterThan(10)

    // Configuration changes.
    const hook = await json(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'http://127.0.0.1:9/a'])
    await expectExit(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'http://127.0.0.1:9/b'], 5)
    await expectExit(WebhookUpdate, [hook.id, '--url', 'http://127.0.0.1:9/c'], 0)
    await expectExit(WebhookDelete, [hook.id, '--yes'], 0)
    await expectExit(
      CustomizeSet,
      [
        '--logo-url',
        'https://cdn.example/logo.png',
        '--icon-url',
        'https://cdn.example/icon.ico',
        '--apple-touch-icon-url',
        'https://cdn.example/touch.png',
        '--title',
        'Tea House',
        '--color',
        '#0a7d3b',
      ],
      0,
    )
    await expectExit(CustomizeRemove, ['--yes'], 0)

    // Money: a void, a void whose answer is lost after it happened, a void refused before sending.
    const voided = await paidCheckout('25.00')
    await expectExit(CheckoutVoid, [voided, '--reason', 'duplicate', '--yes'], 0)
    const lostVoid = await paidCheckout('26.00')
    await file.sandbox.control('faults', {next: [{op: 'voidCheckout', kind: 'drop-after-commit'}]})
    await expectExit(CheckoutVoid, [lostVoid, '--reason', 'duplicate', '--yes'], 0)
    await expectExit(CheckoutVoid, [voided, '--reason', 'again', '--yes'], 5)

    // The next day: a refund, and a refund whose connection drops before it happens.
    const refunded = await paidCheckout('30.00')
    const lostRefund = await paidCheckout('31.00')
    await expectExit(SandboxClock, ['--advance', '24h'], 0)
    const refund = await json(RefundCreate, [refunded, '--reason', 'broken cup', '--amount', '10.00', '--yes'])
    await file.sandbox.control('faults', {next: [{op: 'refundCheckout', kind: 'drop'}]})
    await expectExit(RefundCreate, [lostRefund, '--reason', 'broken cup', '--full', '--yes'], 7)

    const path = join(file.user.dir, 'audit.jsonl')
    const text = readFileSync(path, 'utf8')
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.operation, l.outcome, l.reconciled === true])).toEqual([
      ['registerWebhook', 'applied', false],
      ['registerWebhook', 'refused', false],
      ['updateWebhook', 'applied', false],
      ['deleteWebhook', 'applied', false],
      ['setCustomization', 'applied', false],
      ['removeCustomization', 'applied', false],
      ['initiateCheckout', 'applied', false],
      ['voidCheckout', 'applied', false],
      ['initiateCheckout', 'applied', false],
      ['voidCheckout', 'unknown', false],
      ['voidCheckout', 'applied', true],
      ['voidCheckout', 'refused by rule', false],
      ['initiateCheckout', 'applied', false],
      ['initiateCheckout', 'applied', false],
      ['refundCheckout', 'applied', false],
      ['refundCheckout', 'unknown', false],
      ['refundCheckout', 'not applied', true],
    ])

    for (const line of lines) {
      expect(line).toMatchObject({profile: 'sandbox', env: 'sandbox'})
      expect(Date.parse(line.time)).not.toBeNaN()
      if (line.outcome === 'applied' && !line.reconciled) expect(line.requestId).toMatch(/^[\da-f-]{36}$/)
    }

    expect(lines[0].webhookId).toBe(hook.id)
    expect(lines[1]).toMatchObject({status: 400, requestId: expect.any(String)})
    expect(lines[3].webhookId).toBe(hook.id)
    expect(lines[6]).toMatchObject({checkoutId: voided, amount: {value: '25.00', currency: 'PHP'}})
    expect(lines[7]).toMatchObject({checkoutId: voided, amount: {value: '25.00', currency: 'PHP'}, reason: 'duplicate', status: 200})
    expect(lines[10]).toMatchObject({checkoutId: lostVoid, amount: {value: '26.00', currency: 'PHP'}})
    expect(lines[11]).toMatchObject({checkoutId: voided, reason: 'again', code: 'PY0045'})
    expect(lines[14]).toMatchObject({checkoutId: refunded, refundId: refund.refundId, amount: {value: '10.00', currency: 'PHP'}, reason: 'broken cup'})
    expect(lines[16]).toMatchObject({checkoutId: lostRefund, amount: {value: '31.00', currency: 'PHP'}})

    // No key (raw or as the Basic credential), no session, no password, no card number.
    const basic = (key: string) => Buffer.from(`${key}:`).toString('base64')
    for (const secret of [
      file.sandbox.secretKey,
      file.sandbox.publicKey,
      basic(file.sandbox.secretKey),
      basic(file.sandbox.publicKey),
      session,
      PASSWORD,
      CARD,
    ]) {
      expect(text).not.toContain(secret)
    }

    expect(statSync(path).mode & 0o777).toBe(0o600)

    const {entries} = await json(AuditList, [])
    expect(entries).toHaveLength(lines.length)
    const notApplied = await json(AuditList, ['--outcome', 'not applied'])
    expect(notApplied.entries.map((e: any) => e.checkoutId)).toEqual([lostRefund])
  })
})
