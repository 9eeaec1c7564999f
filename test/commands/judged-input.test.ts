/**
 * The input edges of issue 45 (test/commands/refused-input.test.ts has the rest): a currency that
 * is not three letters, a blank body id, an empty sync date, a URL over 2,048 characters, an email
 * over 254, a --limit beyond one document or overflowing. Each is exit 2 with one line naming what
 * is wrong, and the mocked services see no request at all (not even the reads a refund or a `me`
 * lookup would make first).
 */
import {describe, expect, it} from 'vitest'

import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutList from '../../src/commands/checkout/list.js'
import CustomizeSet from '../../src/commands/customize/set.js'
import EventsAdd from '../../src/commands/events/add.js'
import EventsList from '../../src/commands/events/list.js'
import PlanMedicationAdd from '../../src/commands/plan/medication/add.js'
import PlanSensorAdd from '../../src/commands/plan/sensor/add.js'
import RefundCreate from '../../src/commands/refund/create.js'
import UsersCreate from '../../src/commands/users/create.js'
import UsersLogin from '../../src/commands/users/login.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import WebhookUpdate from '../../src/commands/webhook/update.js'
import {isolatedWithMockedServices, runCommand, type Runnable} from '../helpers/command.js'

const harness = isolatedWithMockedServices()
const requests = () => harness.services.agent.getCallHistory()?.calls().length ?? 0

const LONG_URL = `https://shop.example/${'a'.repeat(2049 - 'https://shop.example/'.length)}`
const LONG_EMAIL = `${'a'.repeat(64)}@${'b'.repeat(186)}.com` // 255 characters
const SESSION = {OPSCTL_HEALTH_SESSION: 's%3Asess-Refused1'}

const REFUSED: [string, Runnable, string[], RegExp, string?][] = [
  ['--currency empty', CheckoutCreate, ['--amount', '100.00', '--currency', ''], /--currency.*three-letter currency code/],
  ['--currency a symbol', CheckoutCreate, ['--amount', '100.00', '--currency', '$'], /--currency.*three-letter currency code/],
  ['--currency four letters', CheckoutCreate, ['--amount', '100.00', '--currency', 'PHPX'], /--currency.*three-letter currency code/],
  ['refund --currency empty', RefundCreate, ['chk_1', '--amount', '10.00', '--currency', '', '--reason', 'test', '--yes'], /--currency.*three-letter currency code/],
  ['refund --currency a symbol', RefundCreate, ['chk_1', '--amount', '10.00', '--currency', '$', '--reason', 'test', '--yes'], /--currency.*three-letter currency code/],
  ['a blank --medication-id (plan)', PlanMedicationAdd, ['me', '--medication-id', ' '], /medicationId: expected an id, not an empty or blank text/, 'health'],
  ['a blank --medication-id (event)', EventsAdd, ['me', '--medication-id', '  ', '--medication-type', 'rescue'], /medicationId: expected an id, not an empty or blank text/, 'health'],
  ['an empty --first-sync-date', PlanSensorAdd, ['me', 'med-1', '--mac', 'AA:BB:CC:DD:EE:01', '--model', 'hfa', '--first-sync-date', ''], /--first-sync-date: "" is not a/, 'health'],
  ['an empty --last-sync-date', PlanSensorAdd, ['me', 'med-1', '--mac', 'AA:BB:CC:DD:EE:01', '--model', 'hfa', '--last-sync-date', ' '], /--last-sync-date: " " is not a/, 'health'],
  ['a webhook URL over 2,048 characters', WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', LONG_URL], /callbackUrl: expected a URL of at most 2048 characters/],
  ['a webhook update URL over 2,048 characters', WebhookUpdate, ['wh_1', '--url', LONG_URL], /callbackUrl: expected a URL of at most 2048 characters/],
  ['a logo URL over 2,048 characters', CustomizeSet, ['--logo-url', `${LONG_URL.slice(0, -4)}.png`, '--icon-url', 'https://cdn.example/i.png', '--apple-touch-icon-url', 'https://cdn.example/a.png', '--title', 'Shop', '--color', '#0a7d3b'], /logoUrl: expected a URL of at most 2048/],
  ['a redirect URL over 2,048 characters', CheckoutCreate, ['--amount', '100.00', '--success-url', LONG_URL], /success: expected a URL of at most 2048/],
  ['a buyer email over 254 characters', CheckoutCreate, ['--amount', '100.00', '--buyer-email', LONG_EMAIL], /email: expected an email address of at most 254/],
  ['a user email over 254 characters', UsersCreate, ['--type', 'patient', '--email', LONG_EMAIL, '--given-name', 'A', '--family-name', 'B', '--password-stdin'], /email: expected an email address of at most 254/, 'health'],
  ['a sign-in email over 254 characters', UsersLogin, ['--email', LONG_EMAIL, '--password-stdin'], /email: expected an email address of at most 254/, 'health'],
  ['a --limit that overflows', EventsList, ['me', '--limit', '99999999999999999999'], /--limit/, 'health'],
  ['a --limit beyond one document', EventsList, ['me', '--limit', '10001'], /--limit/, 'health'],
  ['a checkout list --limit that overflows', CheckoutList, ['--limit', '99999999999999999999'], /--limit/],
]

describe('input refused before sending', () => {
  it.each(REFUSED)('%s: exit 2, one line, no request', async (_what, Cmd, argv, message, service) => {
    const r = await runCommand(Cmd, argv, {env: service === 'health' ? SESSION : {}, stdin: 'a-password-1\n'})
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr.split('\n')[0]).toMatch(message)
    expect(r.stdout).toBe('')
    expect(requests()).toBe(0)
  })

  it('a lower-case currency is sent in capitals; a 2,048-character URL and a 254-character email are sent', async () => {
    const pool = harness.services.agent.get('http://127.0.0.1:4010')
    let sent: any
    pool
      .intercept({path: '/checkout/v1/checkouts', method: 'POST'})
      .reply(
        200,
        (opts) => {
          sent = JSON.parse(String(opts.body))
          return {checkoutId: 'chk_1', redirectUrl: 'https://pay.example/chk_1'}
        },
        {headers: {'content-type': 'application/json'}},
      )
    const r = await runCommand(CheckoutCreate, ['--amount', '100.00', '--currency', 'usd', '--success-url', LONG_URL.slice(0, 2048), '--buyer-email', LONG_EMAIL.slice(1), '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(sent.totalAmount.currency).toBe('USD')
    expect(sent.redirectUrl.success).toHaveLength(2048)
    expect(sent.buyer.contact.email).toHaveLength(254)
  })
})
