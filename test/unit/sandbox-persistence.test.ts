/**
 * The --state file: temporary files of a killed sandbox are cleaned at start, and an answer is
 * never a success for a change that could not be saved. (The kill -9 test with real processes is
 * test/e2e/sandbox-durability.test.ts.)
 */
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {SandboxEvent} from '../../src/sandbox/types.js'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {testModules} from '../fixtures/sandbox-modules.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-persist-'))
})
afterEach(() => rmSync(dir, {force: true, recursive: true}))

describe('sandbox state file', () => {
  it("removes the temporary files a killed sandbox left beside the state file, not a running sandbox's", async () => {
    const stateFile = join(dir, 'state.json')
    writeFileSync(stateFile, JSON.stringify({version: 2, checkout: {pays: [{id: 'pay_1', amount: '1.00'}], hooks: []}}))
    const deadPid = 999_999_999 // above any Linux pid_max
    const left = [`.state.json.${deadPid}.tmp`, `.state.json.${process.pid}.tmp`, '.state.json.garbage.tmp']
    const kept = [`.state.json.${process.ppid}.tmp`, '.other.json.1.tmp', 'state.json']
    for (const name of [...left, ...kept]) if (name !== 'state.json') writeFileSync(join(dir, name), '{"torn": ')

    const sb = await createSandbox({port: 0, modules: testModules, stateFile})
    try {
      expect(readdirSync(dir).sort()).toEqual(kept.sort())
      const res = await fetch(`${sb.origin}/checkout/v1/checkouts`, {headers: {authorization: basicAuth(SANDBOX_KEYS.secretKey)}})
      expect(await res.json()).toEqual([{id: 'pay_1', amount: '1.00'}])
    } finally {
      await sb.close()
    }
  })

  it('keeps no session id in the file, and the session still works after a restart', async () => {
    const stateFile = join(dir, 'state.json')
    const V = {'x-ph-api-version': '3.14.0'}
    const first = await createSandbox({port: 0, modules: testModules, stateFile})
    const signIn = await first.app.inject({method: 'POST', url: '/api/sign-in', payload: {email: 'ana@example.com'}, headers: V})
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]
    const sid = cookie.slice('connect.sid='.length)
    expect(sid.length).toBeGreaterThan(20)
    await first.close()
    expect(readFileSync(stateFile, 'utf8')).not.toContain(sid)

    const second = await createSandbox({port: 0, modules: testModules, stateFile})
    try {
      const notes = await second.app.inject({url: '/api/users/me/notes', headers: {...V, cookie}})
      expect(notes.statusCode).toBe(200)
      expect(notes.json().userId).toBe('ana@example.com')
    } finally {
      await second.close()
    }
  })

  it('answers 500 "outcome unknown", never the success, when a change cannot be saved; events wait for the save', async () => {
    const folder = join(dir, 'state')
    mkdirSync(folder)
    const stateFile = join(folder, 'state.json')
    const sb = await createSandbox({port: 0, modules: testModules, stateFile})
    const heard: SandboxEvent[] = []
    sb.onEvent((event) => heard.push(event))
    const create = (amount: string) =>
      fetch(`${sb.origin}/checkout/v1/checkouts`, {
        body: JSON.stringify({amount}),
        headers: {authorization: basicAuth(SANDBOX_KEYS.publicKey), 'content-type': 'application/json'},
        method: 'POST',
      })
    try {
      expect((await create('1.00')).status).toBe(200)
      rmSync(folder, {force: true, recursive: true})

      const lost = await create('2.00')
      expect(lost.status).toBe(500)
      expect(await lost.json()).toMatchObject({code: 'PY0500', message: expect.stringContaining('outcome is unknown')})
      const paid = await fetch(`${sb.origin}/checkout/v1/checkouts/chk_9/pay`, {method: 'POST'})
      expect(paid.status).toBe(500)
      expect(heard).toEqual([])

      mkdirSync(folder)
      expect((await create('3.00')).status).toBe(200)
      expect(heard.map((e) => [e.type, e.checkoutId])).toEqual([['CHECKOUT_SUCCESS', 'chk_9']])
      const saved = JSON.parse(readFileSync(stateFile, 'utf8'))
      expect(saved.checkout.pays.map((p: {amount: string}) => p.amount)).toEqual(['1.00', '2.00', '3.00'])
    } finally {
      await sb.close()
    }

    expect(existsSync(stateFile)).toBe(true)
  })
})
