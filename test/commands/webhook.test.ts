import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import WebhookDelete from '../../src/commands/webhook/delete.js'
import WebhookList from '../../src/commands/webhook/list.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import WebhookUpdate from '../../src/commands/webhook/update.js'
import {BASE, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

const hook = {
  id: 'wh_1',
  name: 'CHECKOUT_SUCCESS',
  callbackUrl: 'https://shop.example/paid',
  createdAt: '2026-11-21T02:00:00Z',
  updatedAt: '2026-11-21T02:00:00Z',
}

describe('webhook commands', () => {
  it('register sends name and callbackUrl and shows the webhook', async () => {
    h.pool.intercept({path: `${BASE}/webhooks`, method: 'POST'}).reply(200, hook, {headers: JSON_HEADERS})
    const out = await h.run(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'https://shop.example/paid'])
    expect(out.code).toBe(0)
    expect(h.calls()[0].body).toEqual({name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/paid'})
    expect(out.stdout).toMatch(/callbackUrl\thttps:\/\/shop\.example\/paid/)
  })

  it('register refuses an unknown event name or a non-http URL before sending (exit 2)', async () => {
    expect((await h.run(WebhookRegister, ['--name', 'CHECKOUT_PAID', '--url', 'https://x.example'])).code).toBe(2)
    const out = await h.run(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'ftp://x.example/hook'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('callbackUrl')
    expect(h.calls()).toEqual([])
  })

  it('a second webhook for the same name is refused by the service (PY0039, exit 5)', async () => {
    h.pool
      .intercept({path: `${BASE}/webhooks`, method: 'POST'})
      .reply(400, {code: 'PY0039', message: 'A webhook for CHECKOUT_SUCCESS already exists'}, {headers: JSON_HEADERS})
    const out = await h.run(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'https://shop.example/paid'])
    expect(out.code).toBe(5)
    expect(out.stderr).toContain('already exists')
  })

  it('list shows a table', async () => {
    h.pool.intercept({path: `${BASE}/webhooks`, method: 'GET'}).reply(200, [hook], {headers: JSON_HEADERS})
    const out = await h.run(WebhookList, [])
    expect(out.stdout).toMatch(/wh_1\tCHECKOUT_SUCCESS\thttps:\/\/shop\.example\/paid/)
  })

  it('update with only --url keeps the current name (PUT needs both)', async () => {
    h.pool.intercept({path: `${BASE}/webhooks`, method: 'GET'}).reply(200, [hook], {headers: JSON_HEADERS})
    h.pool
      .intercept({path: `${BASE}/webhooks/wh_1`, method: 'PUT'})
      .reply(200, {...hook, callbackUrl: 'https://shop.example/v2'}, {headers: JSON_HEADERS})
    const out = await h.run(WebhookUpdate, ['wh_1', '--url', 'https://shop.example/v2', '--json'])
    expect(out.code).toBe(0)
    expect(h.calls()[1]).toMatchObject({method: 'PUT', body: {name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/v2'}})
  })

  it('update of an unknown webhook exits 4; with nothing to change exits 2', async () => {
    h.pool.intercept({path: `${BASE}/webhooks`, method: 'GET'}).reply(200, [hook], {headers: JSON_HEADERS})
    expect((await h.run(WebhookUpdate, ['wh_9', '--url', 'https://x.example'])).code).toBe(4)
    expect((await h.run(WebhookUpdate, ['wh_1'])).code).toBe(2)
    expect(h.calls().filter((c) => c.method === 'PUT')).toEqual([])
  })

  it('delete needs consent: without --yes nothing is sent (exit 2); with --yes one DELETE', async () => {
    const refused = await h.run(WebhookDelete, ['wh_1'])
    expect(refused.code).toBe(2)
    expect(h.calls()).toEqual([])
    h.pool.intercept({path: `${BASE}/webhooks/wh_1`, method: 'DELETE'}).reply(200, {id: 'wh_1'}, {headers: JSON_HEADERS})
    const out = await h.run(WebhookDelete, ['wh_1', '--yes', '--json'])
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toEqual({deleted: 'wh_1'})
  })

  it('delete of an unknown webhook exits 4 (PY0038) and is not retried', async () => {
    h.pool
      .intercept({path: `${BASE}/webhooks/nope`, method: 'DELETE'})
      .reply(404, {code: 'PY0038', message: 'Webhook nope not found'}, {headers: JSON_HEADERS})
    const out = await h.run(WebhookDelete, ['nope', '--yes'])
    expect(out.code).toBe(4)
    expect(h.calls()).toHaveLength(1)
  })
})
