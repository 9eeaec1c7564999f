/**
 * Invalid input is refused before anything is sent: exit 2, one line, and no request at all, not
 * even a read (the MockAgent has no interceptor to answer one, and records every request it sees).
 * And the other way round: an answer from the server is never exit 2.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {readAudit} from '../../src/audit/read.js'
import {MAX_DATA_DEPTH} from '../../src/cli/data-input.js'
import Api from '../../src/commands/api.js'
import CheckoutCreate from '../../src/commands/checkout/create.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutPay from '../../src/commands/checkout/pay.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import CustomizeSet from '../../src/commands/customize/set.js'
import EventsAdd from '../../src/commands/events/add.js'
import EventsDelete from '../../src/commands/events/delete.js'
import EventsGet from '../../src/commands/events/get.js'
import EventsList from '../../src/commands/events/list.js'
import EventsUpdate from '../../src/commands/events/update.js'
import GroupsConfig from '../../src/commands/groups/config.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import PlanMedicationDelete from '../../src/commands/plan/medication/delete.js'
import PlanMedicationUpdate from '../../src/commands/plan/medication/update.js'
import PlanSensorAdd from '../../src/commands/plan/sensor/add.js'
import PlanSensorDelete from '../../src/commands/plan/sensor/delete.js'
import PlanShow from '../../src/commands/plan/show.js'
import RefundCreate from '../../src/commands/refund/create.js'
import RefundGet from '../../src/commands/refund/get.js'
import RefundList from '../../src/commands/refund/list.js'
import UsersGet from '../../src/commands/users/get.js'
import UsersInspect from '../../src/commands/users/inspect.js'
import WebhookDelete from '../../src/commands/webhook/delete.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import WebhookUpdate from '../../src/commands/webhook/update.js'
import {BASE, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness

// A session from the environment: `me` would have to be asked of the service, so a refusal that
// came after resolving it would show up as a GET /api/users/me.
beforeEach(async () => {
  h = await commandHarness({OPSCTL_HEALTH_SESSION: 'sess-from-env'})
})
afterEach(async () => {
  await h.close()
})

type Cmd = Parameters<CommandHarness['run']>[0]

async function expectRefusedBeforeSending(cmd: Cmd, argv: string[], message: RegExp | string): Promise<void> {
  const out = await h.run(cmd, argv)
  const what = argv.join(' ').slice(0, 120)
  expect(out.code, `${what}\n${out.stderr}`).toBe(2)
  expect(out.stdout, what).toBe('')
  const lines = out.stderr.trim().split('\n')
  expect(lines[0], what).toMatch(/^Error: /)
  expect(lines[0], what).toMatch(message)
  expect(out.stderr, what).not.toMatch(/\n\s+at /)
  expect(h.calls(), what).toEqual([])
}

// eslint-disable-next-line no-script-url -- the hostile redirect the CLI must refuse
const SCRIPT_URL = 'javascript:alert(document.cookie)'
const order = {totalAmount: {value: '10.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: 'ORDER-1'}

describe('redirect and callback URLs are http(s) only', () => {
  for (const [flag, url] of [
    ['--success-url', SCRIPT_URL],
    ['--failure-url', 'data:text/html,<script>alert(1)</script>'],
    ['--cancel-url', 'ftp://shop.example/cart'],
    ['--success-url', 'https:/missing-slash'],
  ]) {
    it(`checkout create ${flag} ${url.slice(0, 20)}...`, async () => {
      await expectRefusedBeforeSending(CheckoutCreate, ['--amount', '10.00', flag, url], /redirectUrl\.\w+: expected an http\(s\) URL/)
    })
  }

  it('checkout create --data with a javascript: redirect URL', async () => {
    const data = JSON.stringify({...order, redirectUrl: {success: SCRIPT_URL}})
    await expectRefusedBeforeSending(CheckoutCreate, ['--data', data], 'redirectUrl.success: expected an http(s) URL')
  })

  it('webhook register and webhook update refuse a data: or javascript: callback, update without reading the webhook first', async () => {
    await expectRefusedBeforeSending(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'data:text/plain,x'], 'callbackUrl')
    await expectRefusedBeforeSending(WebhookUpdate, ['wh_1', '--url', SCRIPT_URL], 'callbackUrl: expected an http(s) URL')
  })

  it('an http(s) redirect URL, loopback included, is sent', async () => {
    h.pool
      .intercept({path: `${BASE}/checkouts`, method: 'POST'})
      .reply(200, {checkoutId: 'chk_1', redirectUrl: 'http://127.0.0.1:4010/checkout/pay/chk_1'}, {headers: JSON_HEADERS})
    const out = await h.run(CheckoutCreate, ['--amount', '10.00', '--success-url', 'http://localhost:3000/ok', '--json'])
    expect(out.code, out.stderr).toBe(0)
    expect(h.calls()[0].body.redirectUrl).toEqual({success: 'http://localhost:3000/ok'})
  })
})

describe('an id that cannot be one is refused before any request, the `me` lookup included', () => {
  // Each becomes a path segment: a dot segment, a slash, an encoded dot or slash, nothing, or text
  // that shows as nothing.
  const BAD_IDS = ['..', '.', '/', 'a/b', 'a\\b', '%2e%2e', '%2F', '', ' ', ' chk_1', 'chk 1', '\t', 'chk_1\n', '\u200B', 'chk_1\u200B', '\u2060', '\uFEFF']
  const ID = Symbol('the id under test')
  const COMMANDS: [string, Cmd, (string | typeof ID)[]][] = [
    ['events get <user>', EventsGet, [ID, 'e1']],
    ['events get me <event>', EventsGet, ['me', ID]],
    ['events list', EventsList, [ID]],
    ['events add', EventsAdd, [ID, '--medication-id', 'med-1', '--medication-type', 'rescue']],
    ['events update', EventsUpdate, ['me', ID, '--doses', '2']],
    ['events delete', EventsDelete, ['me', ID, '--yes']],
    ['metrics get', MetricsGet, [ID, '--name', 'eventsRescue']],
    ['plan show', PlanShow, [ID]],
    ['plan medication update', PlanMedicationUpdate, ['me', ID, '--usage', '08:00=1']],
    ['plan medication delete', PlanMedicationDelete, ['me', ID, '--yes']],
    ['plan sensor add', PlanSensorAdd, ['me', ID, '--mac', 'AA:BB:CC:DD:EE:01', '--model', 'hfa-sensor']],
    ['plan sensor delete', PlanSensorDelete, ['me', ID, 'AA:BB:CC:DD:EE:01', '--yes']],
    ['users get', UsersGet, [ID]],
    ['users inspect', UsersInspect, [ID]],
    ['groups config', GroupsConfig, [ID]],
    ['checkout get', CheckoutGet, [ID]],
    ['checkout pay', CheckoutPay, [ID]],
    ['checkout void', CheckoutVoid, [ID, '--reason', 'duplicate', '--yes']],
    ['refund create', RefundCreate, [ID, '--reason', 'broken', '--full', '--yes']],
    ['refund list', RefundList, [ID]],
    ['refund get <checkout>', RefundGet, [ID, 'rfd_1']],
    ['refund get <refund>', RefundGet, ['chk_1', ID]],
    ['webhook update', WebhookUpdate, [ID, '--url', 'https://shop.example/paid']],
    ['webhook delete', WebhookDelete, [ID, '--yes']],
  ]
  for (const [name, cmd, template] of COMMANDS) {
    it(`${name}: exit 2, the id named, and no request for ${BAD_IDS.length} bad ids`, async () => {
      for (const bad of BAD_IDS) {
        await expectRefusedBeforeSending(
          cmd,
          template.map((part) => (part === ID ? bad : part)),
          /^Error: Invalid [\w ]+ ".*": it (is empty|is a path segment|contains)/,
        )
      }
    })
  }
})

describe('the same flag is checked the same way everywhere', () => {
  it('--start after --end: metrics get refuses it like events list', async () => {
    for (const [cmd, argv] of [
      [EventsList, ['me']],
      [MetricsGet, ['me', '--name', 'eventsRescue']],
    ] as const) {
      await expectRefusedBeforeSending(cmd, [...argv, '--start', '2026-03-01', '--end', '2026-01-01'], '--start (2026-03-01T00:00:00.000Z) is after --end (2026-01-01T00:00:00.000Z)')
    }
  })

  it('a --reason of only spaces or invisible characters is refused on void and refund', async () => {
    for (const reason of ['\u200B', ' ', '\u200B\u200C\u2060', '\u3164', '\n\t']) {
      await expectRefusedBeforeSending(CheckoutVoid, ['chk_1', '--reason', reason, '--yes'], /^Error: --reason: must say something; ".*" is empty or invisible$/)
      await expectRefusedBeforeSending(RefundCreate, ['chk_1', '--reason', reason, '--full', '--yes'], /^Error: --reason: must say something/)
    }
  })

  it("webhook update --url '' is refused, not dropped; so is webhook register --url ''", async () => {
    await expectRefusedBeforeSending(WebhookUpdate, ['wh_1', '--url', ''], '--url: must say something; "" is empty or invisible')
    await expectRefusedBeforeSending(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', ' '], '--url: must say something')
  })
})

describe('amounts that move money are more than 0.00', () => {
  it('checkout create --data with a 0.00 total', async () => {
    const data = JSON.stringify({...order, totalAmount: {value: '0.00', currency: 'PHP'}, items: [{name: 'Gift'}]})
    await expectRefusedBeforeSending(CheckoutCreate, ['--data', data], 'totalAmount.value: must be greater than 0.00')
  })

  it('refund create --amount 0 and 0.00', async () => {
    for (const amount of ['0', '0.00']) {
      await expectRefusedBeforeSending(RefundCreate, ['chk_1', '--reason', 'x', '--amount', amount, '--yes'], 'greater than 0.00')
    }
  })
})

describe('an update with nothing to change', () => {
  it('webhook update with neither --name nor --url', async () => {
    await expectRefusedBeforeSending(WebhookUpdate, ['wh_1'], 'Nothing to change')
  })

  it('events update with no field, an empty --data, or only fields the service does not know', async () => {
    await expectRefusedBeforeSending(EventsUpdate, ['me', 'e1'], 'Nothing to update')
    await expectRefusedBeforeSending(EventsUpdate, ['me', 'e1', '--data', '{}'], 'Nothing to update')
    await expectRefusedBeforeSending(EventsUpdate, ['me', 'e1', '--data', '{"note":"x"}'], 'nothing to change: give at least one of date')
  })

  it('plan medication update with nothing, or only unknown fields', async () => {
    await expectRefusedBeforeSending(PlanMedicationUpdate, ['me', 'med-a'], 'Nothing to change')
    await expectRefusedBeforeSending(PlanMedicationUpdate, ['me', 'med-a', '--data', '{"note":"x"}'], 'give at least one of usageList, sensors')
  })

  it('customize set with nothing', async () => {
    await expectRefusedBeforeSending(CustomizeSet, [], 'Missing required flag')
  })

  it('a bad event body is refused before `me` is asked of the service', async () => {
    await expectRefusedBeforeSending(
      EventsAdd,
      ['me', '--data', '{"date":"2026-03-01T10:00:00Z","medicationId":"m","medicationType":"sometimes"}'],
      'medicationType',
    )
  })
})

describe(`--data nested deeper than ${MAX_DATA_DEPTH} levels`, () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)

  it('a 10,000-deep array is exit 2 with a clear message, not a stack overflow (exit 1)', async () => {
    const data = JSON.stringify({...order, metadata: {a: 'PLACEHOLDER'}}).replace('"PLACEHOLDER"', deep(10_000))
    await expectRefusedBeforeSending(CheckoutCreate, ['--data', data], `--data is nested 10002 levels deep; at most ${MAX_DATA_DEPTH}`)
    await expectRefusedBeforeSending(Api, ['checkout', 'POST', '/v1/webhooks', '--data', deep(10_000)], 'nested 10000 levels deep')
    await expectRefusedBeforeSending(EventsUpdate, ['me', 'e1', '--data', `{"symptoms":${deep(100)}}`], 'nested 101 levels deep')
  })

  it('brackets inside strings do not count, and the limit itself is accepted', async () => {
    h.pool.intercept({path: `${BASE}/webhooks`, method: 'POST'}).reply(200, {id: 'wh_1'}, {headers: JSON_HEADERS})
    const data = JSON.stringify({name: '['.repeat(500), note: 'PLACEHOLDER'}).replace('"PLACEHOLDER"', deep(MAX_DATA_DEPTH - 1))
    const out = await h.run(Api, ['checkout', 'POST', '/v1/webhooks', '--data', data])
    expect(out.code, out.stderr).toBe(0)
    expect(h.calls()).toHaveLength(1)
  })
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
