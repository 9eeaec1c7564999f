/**
 * One zone per command family (docs/output.md "Times"): health commands in the signed-in user's
 * zone, `users login` included; checkout commands and the audit log (checkout money) in the checkout
 * service's zone, PH Standard Time (+08:00).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import AuditList from '../../src/commands/audit/list.js'
import CheckoutList from '../../src/commands/checkout/list.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersMe from '../../src/commands/users/me.js'
import {type CommandHarness, commandHarness, ORIGIN} from '../helpers/command.js'
import {JSON_HEADERS} from '../helpers/health.js'

// Tokyo, so the user's zone differs both from UTC and from the checkout zone (+08:00)
const USER = {id: 'u-1', email: 'ana@example.com', role: 'patient', timeZone: 'Asia/Tokyo', createdDate: '2026-09-25T13:22:00.000Z'}

let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

describe('one time zone per command family', () => {
  it('users login and users me show the same time in the same zone, the signed-in user\'s', async () => {
    h.agent
      .get(ORIGIN)
      .intercept({method: 'POST', path: '/api/sign-in'})
      .reply(200, USER, {headers: {...JSON_HEADERS, 'set-cookie': 'connect.sid=sess-9; Path=/; HttpOnly'}})
    const login = await h.run(UsersLogin, ['--email', USER.email, '--password', 'pw-secret-1'])
    expect(login.code, login.stderr).toBe(0)
    h.agent.get(ORIGIN).intercept({method: 'GET', path: '/api/users/me'}).reply(200, USER, {headers: JSON_HEADERS})
    const me = await h.run(UsersMe, [])
    expect(me.code, me.stderr).toBe(0)

    const created = (text: string) => /createdDate\s+(.+)/.exec(text)?.[1]?.trim()
    expect(created(login.stdout)).toBe('2026-09-25T22:22:00.000+09:00')
    expect(created(me.stdout)).toBe(created(login.stdout))
  })

  it('audit list shows its times in the checkout zone, like checkout list', async () => {
    const time = '2026-11-21T01:00:00.000Z'
    const line = {time, profile: 'sandbox', env: 'sandbox', operation: 'initiateCheckout', outcome: 'applied', checkoutId: 'chk_a', amount: {value: '70.00', currency: 'PHP'}}
    writeFileSync(join(h.configDir, 'audit.jsonl'), JSON.stringify(line) + '\n', {mode: 0o600})
    const audit = await h.run(AuditList, ['--columns', 'time,checkoutId'])
    const checkouts = await h.run(CheckoutList, ['--no-refresh', '--columns', 'checkoutId,createdAt'])
    expect(audit.code, audit.stderr).toBe(0)
    expect(checkouts.code, checkouts.stderr).toBe(0)
    expect(audit.stdout).toContain('2026-11-21T09:00:00.000+08:00')
    expect(checkouts.stdout).toContain('2026-11-21T09:00:00.000+08:00')
  })
})
