/**
 * The local audit log end to end: several money and configuration changes through the built CLI
 * (applied, refused by the service, answer lost and reconciled), then `<config dir>/audit.jsonl`
 * read back: one line per attempt with the right outcome, one more per reconciliation, nothing for
 * reads or for what the CLI refused before sending, and no secret anywhere in the file.
 * Run `npm run build` first.
 */
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {type Cli, paidCheckout, type Sandbox, sandboxForFile} from './harness.js'

const START = '2026-11-21T02:00:00Z'
const PASSWORD = 'correct-horse-battery-9'
const CARD = '5123456789012346'

let sandbox: Sandbox
let cli: Cli

sandboxForFile(['--clock', START], (s, c) => {
  sandbox = s
  cli = c
})

async function expectExit(argv: string[], code: number): Promise<void> {
  const result = await cli.run(argv)
  expect(result.code, `opsctl ${argv.join(' ')}: ${result.stderr}`).toBe(code)
}

describe('audit log', {timeout: 180_000}, () => {
  it('one line per money or configuration change, with its outcome, and no secret', async () => {
    // A health session in the profile, so there is one more secret that must not leak.
    const user = await run(UsersCreate, ['--type',
        'patient',
        '--email',
        'ana@example.com',
        '--given-name',
        'Ana',
        '--family-name',
        'Reyes',
        '--password-stdin',
      ],
      {stdin: PASSWORD},
    )
    expect(user.code, user.stderr).toBe(0)
    const session: string = JSON.parse(readFileSync(join(cli.configDir, 'profiles.json'), 'utf8')).profiles.sandbox.health.session
    expect(session.length).toBeGreaterThan(10)

    // Configuration changes.
    const hook = await json(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'http://127.0.0.1:9/a'])
    await expectExit(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'http://127.0.0.1:9/b'], 5)
    await expectExit(WebhookUpdate, [hook.id, '--url', 'http://127.0.0.1:9/c'], 0)
    await expectExit(WebhookDelete, [hook.id, '--yes'], 0)
    await expectExit(CustomizeSet, ['--logo-url',
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
    const voided = await paidCheckout(cli, '25.00')
    await expectExit(CheckoutVoid, [voided, '--reason', 'duplicate', '--yes'], 0)
    const lostVoid = await paidCheckout(cli, '26.00')
    await sandbox.control('faults', {next: [{op: 'voidCheckout', kind: 'drop-after-commit'}]})
    await expectExit(CheckoutVoid, [lostVoid, '--reason', 'duplicate', '--yes'], 0)
    await expectExit(CheckoutVoid, [voided, '--reason', 'again', '--yes'], 5)

    // The next day: a refund, and a refund whose connection drops before it happens.
    const refunded = await paidCheckout(cli, '30.00')
    const lostRefund = await paidCheckout(cli, '31.00')
    await expectExit(SandboxClock, ['--advance', '24h'], 0)
    const refund = await json(RefundCreate, [refunded, '--reason', 'broken cup', '--amount', '10.00', '--yes'])
    await sandbox.control('faults', {next: [{op: 'refundCheckout', kind: 'drop'}]})
    await expectExit(RefundCreate, [lostRefund, '--reason', 'broken cup', '--full', '--yes'], 7)

    const path = join(cli.configDir, 'audit.jsonl')
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
      ['voidCheckout', 'applied', false],
      ['voidCheckout', 'unknown', false],
      ['voidCheckout', 'applied', true],
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
    expect(lines[6]).toMatchObject({checkoutId: voided, amount: {value: '25.00', currency: 'PHP'}, status: 200})
    expect(lines[8]).toMatchObject({checkoutId: lostVoid, amount: {value: '26.00', currency: 'PHP'}})
    expect(lines[9]).toMatchObject({checkoutId: refunded, refundId: refund.refundId, amount: {value: '10.00', currency: 'PHP'}})
    expect(lines[11]).toMatchObject({checkoutId: lostRefund, amount: {value: '31.00', currency: 'PHP'}})

    // No key (raw or as the Basic credential), no session, no password, no card number.
    const basic = (key: string) => Buffer.from(`${key}:`).toString('base64')
    for (const secret of [
      sandbox.secretKey,
      sandbox.publicKey,
      basic(sandbox.secretKey),
      basic(sandbox.publicKey),
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
