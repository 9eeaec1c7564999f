/**
 * The --state database: no session id in it, an answer is never a success for a change that could
 * not be committed, webhook deliveries that are due survive a restart, a second sandbox on the
 * same file and a file of a newer schema are refused. (The kill -9 test with real processes is
 * test/e2e/sandbox-durability.test.ts.)
 */

import {mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {SqliteDatabase} from '../../src/sandbox/core/sqlite-driver.js'
import type {SandboxEvent} from '../../src/sandbox/types.js'

import {basicAuth} from '../../src/http/services.js'
import {SCHEMA_VERSION} from '../../src/sandbox/core/schema.js'
import {createSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'
import {testModules} from '../fixtures/sandbox-modules.js'
import {controlHeaders} from '../helpers/control.js'
import {LoopbackServers} from '../helpers/loopback-servers.js'
import {openDatabase,sqliteDb, statement} from '../helpers/sqlite.js'

const V = {'x-ph-api-version': '3.14.0'}
const SECRET = {authorization: basicAuth(SANDBOX_KEYS.secretKey), 'content-type': 'application/json'}
const PUBLIC = {authorization: basicAuth(SANDBOX_KEYS.publicKey), 'content-type': 'application/json'}

let dir: string
const servers = new LoopbackServers()
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-persist-'))
})
afterEach(async () => {
  await servers.closeAll()
  rmSync(dir, {force: true, recursive: true})
})

/** Every write to the documents table makes the transaction's commit fail (a deferred foreign key with no parent), until `heal`. */
function failCommits(db: SqliteDatabase): {heal(): void} {
  db.exec(`
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE orphan (parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
    CREATE TRIGGER orphan_on_insert AFTER INSERT ON documents BEGIN INSERT INTO orphan VALUES (1); END;
    CREATE TRIGGER orphan_on_update AFTER UPDATE ON documents BEGIN INSERT INTO orphan VALUES (1); END;
    CREATE TRIGGER orphan_on_delivery AFTER INSERT ON deliveries BEGIN INSERT INTO orphan VALUES (1); END;
  `)
  return {heal: () => db.exec('DROP TRIGGER orphan_on_insert; DROP TRIGGER orphan_on_update; DROP TRIGGER orphan_on_delivery')}
}

describe('sandbox state database', () => {
  it('keeps no session id in the file (mode 0600), and the session still works after a restart', async () => {
    const stateFile = join(dir, 'state.db')
    const first = await createSandbox({port: 0, modules: testModules, stateFile})
    const signIn = await first.app.inject({method: 'POST', url: '/api/sign-in', payload: {email: 'ana@example.com'}, headers: V})
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]
    const sid = cookie.slice('connect.sid='.length)
    expect(sid.length).toBeGreaterThan(20)
    await first.close()
    expect(readFileSync(stateFile).includes(sid)).toBe(false)
    expect(statSync(stateFile).mode & 0o777).toBe(0o600)

    const second = await createSandbox({port: 0, modules: testModules, stateFile})
    try {
      const notes = await second.app.inject({url: '/api/users/me/notes', headers: {...V, cookie}})
      expect(notes.statusCode).toBe(200)
      expect(notes.json().userId).toBe('ana@example.com')
    } finally {
      await second.close()
    }
  })

  it('answers 500 "outcome unknown", never the success, when a commit fails; nothing of it stays, and its events are not heard', async () => {
    const stateFile = join(dir, 'state.db')
    const sb = await createSandbox({port: 0, modules: testModules, stateFile})
    const heard: SandboxEvent[] = []
    sb.onEvent((event) => heard.push(event))
    const receiver = await servers.listen(createServer((_req, res) => res.writeHead(200).end()))
    const create = (amount: string) => sb.app.inject({method: 'POST', url: '/checkout/v1/checkouts', payload: {amount}, headers: PUBLIC})
    try {
      expect((await create('1.00')).statusCode).toBe(200)
      const hook = {name: 'CHECKOUT_SUCCESS', url: `${receiver}/hook`}
      expect((await sb.app.inject({method: 'POST', url: '/checkout/v1/hooks', payload: hook, headers: SECRET})).statusCode).toBe(200)
      const faults = failCommits(sqliteDb(sb.store))

      const lost = await create('2.00')
      expect(lost.statusCode).toBe(500)
      expect(lost.json()).toMatchObject({code: 'PY0500', message: expect.stringContaining('outcome is unknown')})
      // paying stores the delivery it is due, so it fails the same way
      expect((await sb.app.inject({method: 'POST', url: '/checkout/v1/checkouts/chk_9/pay'})).statusCode).toBe(500)
      expect(heard).toEqual([])

      faults.heal()
      expect((await create('3.00')).statusCode).toBe(200)
      expect((await sb.app.inject({method: 'POST', url: '/checkout/v1/checkouts/chk_9/pay'})).statusCode).toBe(200)
      expect(heard.map((e) => [e.type, e.checkoutId])).toEqual([['CHECKOUT_SUCCESS', 'chk_9']])
      const pays = (await sb.app.inject({url: '/checkout/v1/checkouts', headers: SECRET})).json()
      expect(pays.map((p: {amount: string}) => p.amount)).toEqual(['1.00', '3.00'])
    } finally {
      await sb.close()
    }
  })

  it('delivers after a restart the webhooks that were due when the sandbox stopped', async () => {
    const stateFile = join(dir, 'state.db')
    const received: string[] = []
    let answer = 503
    const receiver = await servers.listen(
      createServer((req, res) => {
        let body = ''
        req.on('data', (chunk) => (body += chunk))
        req.on('end', () => {
          received.push(`${answer} ${JSON.parse(body).id}`)
          res.writeHead(answer).end()
        })
      }),
    )
    const first = await createSandbox({port: 0, modules: testModules, stateFile})
    const hook = {name: 'CHECKOUT_SUCCESS', url: `${receiver}/hook`}
    await first.app.inject({method: 'POST', url: '/checkout/v1/hooks', payload: hook, headers: SECRET})
    expect((await first.app.inject({method: 'POST', url: '/checkout/v1/checkouts/chk_1/pay'})).statusCode).toBe(200)
    // the first attempt answered 503: its retry falls due 5 minutes later on the sandbox's clock
    await first.close()
    expect(received).toEqual(['503 chk_1'])

    // a restart sends nothing before that time, and the retry once the clock passes it
    answer = 200
    received.length = 0
    const second = await createSandbox({port: 0, modules: testModules, stateFile})
    await second.close()
    expect(received).toEqual([])
    // --clock moving the saved clock past it at start makes it due then
    const third = await createSandbox({clock: new Date(Date.now() + 6 * 60_000).toISOString(), port: 0, modules: testModules, stateFile})
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    await third.close()
    expect(received).toEqual(['200 chk_1'])
    received.length = 0

    // one still due when a sandbox stopped without finishing it (killed while its claim ran) goes out at the next start
    const stopped = openDatabase(stateFile)
    statement(stopped, `INSERT INTO deliveries (tenant, id, doc, claimed_until) VALUES ('default', 'due-1', ?, ?)`).run(
      JSON.stringify({event: {type: 'CHECKOUT_SUCCESS', checkoutId: 'chk_2', payload: {id: 'chk_2'}}, url: `${receiver}/hook`}),
      Date.now() + 60_000,
    )
    stopped.close()

    const fourth = await createSandbox({port: 0, modules: testModules, stateFile})
    await fourth.close()
    expect(received).toEqual(['200 chk_2'])
    const db = openDatabase(stateFile, {readonly: true})
    expect(statement(db, `SELECT count(*) AS n FROM deliveries`).get()).toEqual({n: 0})
    db.close()
  })

  it('refuses a second sandbox on the same file while the first runs', async () => {
    const stateFile = join(dir, 'state.db')
    const first = await createSandbox({port: 0, modules: testModules, stateFile})
    try {
      await expect(createSandbox({port: 0, modules: testModules, stateFile})).rejects.toThrow(/in use by another sandbox/)
      expect((await first.app.inject({url: '/checkout/v1/checkouts', headers: SECRET})).statusCode).toBe(200)
    } finally {
      await first.close()
    }
  })

  it('refuses a database of a newer schema, naming both versions, and leaves it as it is', async () => {
    const stateFile = join(dir, 'state.db')
    const db = openDatabase(stateFile)
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`)
    db.close()
    const before = readFileSync(stateFile)
    await expect(createSandbox({port: 0, modules: testModules, stateFile})).rejects.toThrow(
      `schema version ${SCHEMA_VERSION + 1}, written by a newer opsctl; this one reads up to version ${SCHEMA_VERSION}`,
    )
    expect(readFileSync(stateFile).equals(before)).toBe(true)
  })
})

describe('the sandbox clock in the --state database', () => {
  const START = '2026-11-21T02:00:00.000Z'
  const HOUR = 3_600_000
  const clockOf = async (sb: Awaited<ReturnType<typeof createSandbox>>) => Date.parse((await sb.app.inject({url: '/__sandbox/clock', headers: controlHeaders(sb.token)})).json().now)

  it('is where the state left it after a restart; an earlier --clock leaves it there, saying so; a later one moves it on', async () => {
    const stateFile = join(dir, 'state.db')
    const first = await createSandbox({port: 0, modules: testModules, stateFile, clock: START})
    const moved = await first.app.inject({method: 'POST', url: '/__sandbox/clock', payload: {advance: '48h'}, headers: controlHeaders(first.token)})
    expect(moved.statusCode).toBe(200)
    await first.close()

    const notices: string[] = []
    const second = await createSandbox({port: 0, modules: testModules, stateFile, clock: START, notice: (m) => notices.push(m)})
    expect(await clockOf(second)).toBeGreaterThanOrEqual(Date.parse(START) + 48 * HOUR)
    expect(notices).toEqual([expect.stringContaining(`--clock ${START} would move it back`)])
    await second.close()

    const later = '2026-12-01T00:00:00.000Z'
    const third = await createSandbox({port: 0, modules: testModules, stateFile, clock: later})
    expect(await clockOf(third)).toBeGreaterThanOrEqual(Date.parse(later))
    await third.close()
  })

  it('a clock move whose commit fails is undone with it: the clock is where it was, now and after a restart', async () => {
    const stateFile = join(dir, 'state.db')
    const sb = await createSandbox({port: 0, modules: testModules, stateFile, clock: START, notice: () => {}})
    const fault = failCommits(sqliteDb(sb.store))
    const stderr = process.stderr.write
    process.stderr.write = () => true
    let res
    try {
      res = await sb.app.inject({method: 'POST', url: '/__sandbox/clock', payload: {advance: '240h'}, headers: controlHeaders(sb.token)})
    } finally {
      process.stderr.write = stderr
    }

    expect(res.statusCode).toBe(500)
    expect(await clockOf(sb)).toBeLessThan(Date.parse(START) + HOUR)
    fault.heal()
    await sb.close()
    const again = await createSandbox({port: 0, modules: testModules, stateFile, notice: () => {}})
    expect(await clockOf(again)).toBeLessThan(Date.parse(START) + HOUR)
    await again.close()
  })
})
