/**
 * Invalid input is refused before anything is sent: exit 2, one line, and no request at all, not
 * even a read (the MockAgent has no interceptor to answer one, and records every request it sees).
 * And the other way round: an answer from the server is never exit 2.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import CheckoutGet from '../../src/commands/checkout/get.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import {readAudit} from '../../src/lib/audit/log.js'
import {BASE, type CommandHarness, commandHarness, JSON_HEADERS} from './checkout-harness.js'

let h: CommandHarness

// A session from the environment: `me` would have to be asked of the service, so a refusal that
// came after resolving it would show up as a GET /api/users/me.
beforeEach(async () => {
  h = await commandHarness({OPSCTL_HEALTH_SESSION: 'sess-from-env'})
})
afterEach(async () => {
  await h.close()
})

describe('an answer from the server is never exit 2 (2 means nothing was sent)', () => {
  it('431 for a 100 KB checkout id: exit 5, with the status', async () => {
    const id = 'a'.repeat(100_000)
    h.pool
      .intercept({path: `${BASE}/checkouts/${id}`, method: 'GET'})
      .reply(431, {message: 'Request Header Fields Too Large'}, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutGet, [id])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('HTTP 431')
    expect(h.calls()).toHaveLength(1)
  })

  it('400 and 413 on a change: exit 5, and the audit says refused', async () => {
    for (const status of [400, 413]) {
      h.pool
        .intercept({path: `${BASE}/webhooks`, method: 'POST'})
        .reply(status, {code: 'PY0001', message: 'Invalid request'}, {headers: JSON_HEADERS})
      const out = await h.run(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'https://shop.example/paid'])
      expect(out.code, `HTTP ${status}`).toBe(5)
      expect(out.stderr).toContain(`HTTP ${status}`)
    }

    expect(h.calls()).toHaveLength(2)
    const {entries} = await readAudit(process.env.OPSCTL_CONFIG_DIR!)
    expect(entries.map((e) => [e.operation, e.outcome, e.status])).toEqual([
      ['registerWebhook', 'refused', 400],
      ['registerWebhook', 'refused', 413],
    ])
  })
})
