/**
 * A JSON state file of the format sandboxes wrote before the database is imported once, in place,
 * with a message saying so; the JSON is kept beside it and never overwritten.
 */
import {existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS, SANDBOX_STATE_LIMIT_BYTES} from '../../src/services/sandbox-defaults.js'

const SECRET = {authorization: basicAuth(SANDBOX_KEYS.secretKey)}
const CHECKOUT = {
  id: 'chk_json',
  totalAmount: {value: '10.00', currency: 'PHP'},
  items: [{name: 'Tea'}],
  requestReferenceNumber: 'FROM-JSON',
  status: 'CREATED',
  paymentStatus: 'PENDING_PAYMENT',
  isAutoRedirect: true,
  refundedAmount: '0.00',
  createdAt: '2026-11-21T02:00:00.000Z',
  updatedAt: '2026-11-21T02:00:00.000Z',
  expiredAt: '2026-11-21T03:00:00.000Z',
  giftWrap: true,
}
const VERSION_2 = JSON.stringify({version: 2, health: {users: [], events: []}, checkout: {checkouts: [['chk_json', CHECKOUT]], refundOutcomes: []}})

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-json-state-'))
})
afterEach(() => rmSync(dir, {force: true, recursive: true}))

describe('a JSON --state file of the earlier format', () => {
  it('is imported once, in place, saying so; the JSON is kept as FILE.v2.json and the records whole', async () => {
    const file = join(dir, 'sandbox.json')
    writeFileSync(file, VERSION_2)
    const notices: string[] = []
    const first = await createSandbox({port: 0, stateFile: file, clock: '2026-11-21T02:10:00Z', notice: (m) => notices.push(m)})
    try {
      expect(notices).toEqual([
        `${file} was a JSON state file (version 2): imported it into a database (SQLite) at the same path; the JSON is kept as ${file}.v2.json`,
      ])
      const res = await first.app.inject({url: '/checkout/v1/checkouts/chk_json', headers: SECRET})
      expect(res.json()).toMatchObject({id: 'chk_json', requestReferenceNumber: 'FROM-JSON', giftWrap: true})
    } finally {
      await first.close()
    }

    expect(readFileSync(`${file}.v2.json`, 'utf8')).toBe(VERSION_2)
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3')
    const second = await createSandbox({port: 0, stateFile: file, notice: (m) => notices.push(m)})
    await second.close()
    expect(notices).toHaveLength(1)
  })

  it('is refused, and left as it is, when a different file already has the name of its copy', async () => {
    const file = join(dir, 'sandbox.json')
    writeFileSync(file, VERSION_2)
    writeFileSync(`${file}.v2.json`, '{"version": 2}')
    await expect(createSandbox({port: 0, stateFile: file, notice() {}})).rejects.toThrow(`${file}.v2.json (where its copy would be kept) already exists`)
    expect(readFileSync(file, 'utf8')).toBe(VERSION_2)
    expect(readFileSync(`${file}.v2.json`, 'utf8')).toBe('{"version": 2}')
    expect(existsSync(`${file}.importing`)).toBe(false)
  })
})

describe('a JSON --state file too large to be a state', () => {
  it('is refused before it is read, naming its size and the limit; the process goes on', async () => {
    const file = join(dir, 'huge.json')
    writeFileSync(file, '{')
    // sparse: the size of a file past the limit, without writing it
    truncateSync(file, SANDBOX_STATE_LIMIT_BYTES + 1)
    const before = process.memoryUsage().rss
    await expect(createSandbox({port: 0, stateFile: file})).rejects.toThrow(`is ${SANDBOX_STATE_LIMIT_BYTES + 1} bytes, over the ${SANDBOX_STATE_LIMIT_BYTES} bytes`)
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024)
  })
})
