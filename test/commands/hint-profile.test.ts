/**
 * A "Try this:" command line acts on the profile the failed command used: run with -p other than
 * the active one, the hint names it, so that pasting it does not sign in to or show another one.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import CheckoutGet from '../../src/commands/checkout/get.js'
import UsersMe from '../../src/commands/users/me.js'
import {ProfileStore} from '../../src/profiles/store.js'
import {BASE, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness, ORIGIN} from '../helpers/command.js'

describe('hints name the profile of the run', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
    const store = await ProfileStore.open(h.configDir)
    const sandbox = store.require('sandbox')
    store.set('second', {...sandbox, health: {...sandbox.health, session: 'sess-second-1'}})
    await store.save()
  })
  afterEach(async () => {
    await h.close()
  })

  it('a 401 on -p second says to sign in again on second; on the active profile no -p is added', async () => {
    h.pool.intercept({method: 'GET', path: '/api/users/me'}).reply(401, {code: 'UNAUTHORIZED', message: 'session expired'}, {headers: JSON_HEADERS}).times(2)
    const other = await h.run(UsersMe, ['-p', 'second'])
    expect(other.code).toBe(3)
    expect(other.stderr).toContain('Try this: Sign in again: opsctl users login --email <email> -p second\n')

    const store = await ProfileStore.open(h.configDir)
    store.use('second')
    await store.save()
    const active = await h.run(UsersMe, [])
    expect(active.stderr).toContain('Try this: Sign in again: opsctl users login --email <email>\n')
  })

  it('a rejected key on -p second points to profile show second', async () => {
    h.agent.get(ORIGIN).intercept({method: 'GET', path: `${BASE}/checkouts/chk_1`}).reply(401, {code: 'PY0001', message: 'bad key'}, {headers: JSON_HEADERS})
    const r = await h.run(CheckoutGet, ['chk_1', '-p', 'second'])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('Try this: Check the profile keys: opsctl profile show second\n')
  })
})
