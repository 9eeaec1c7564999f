/**
 * `checkout reconcile` (issue 48), the merchant's end of day, as real processes: a sandbox with a
 * clock of its own, the built CLI (`npm run build` first). Orders paid, voided, refunded in part and
 * left to expire, and an id the service never saw; the shop's file right, then wrong: the verdicts,
 * the totals and the exit codes. Then a hostile loopback service: a row whose refunds answer is a
 * redirect or cut-off JSON is never a match, and the run exits 6.
 */
import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {checkoutRecord} from '../helpers/checkout.js'
import {listenOnLoopback} from '../helpers/loopback-servers.js'
import {type Cli, cliFor, type Sandbox, startSandbox} from './harness.js'

// 10:00 in Manila: the whole transaction day is ahead, so the void is allowed.
const START = '2026-11-21T02:00:00Z'

let sandbox: Sandbox
let cli: Cli
let folder: string
const ids = {expired: '', paid: '', refunded: '', voided: ''}
const UNKNOWN = 'chk_00000000000000000000dead'

beforeAll(async () => {
  sandbox = await startSandbox(['--clock', START])
  cli = cliFor(sandbox)
  folder = mkdtempSync(join(tmpdir(), 'opsctl-reconcile-'))
  const create = async (amount: string) => (await cli.json(['checkout', 'create', '--amount', amount, '--success-url', 'https://shop.example/ok'])).checkoutId as string
  const pay = async (id: string) => expect((await cli.json(['checkout', 'pay', id, '--card', '5123456789012346'])).paymentStatus).toBe('PAYMENT_SUCCESS')
  ids.paid = await create('100.00')
  ids.voided = await create('50.00')
  ids.refunded = await create('80.00')
  ids.expired = await create('40.00')
  for (const id of [ids.paid, ids.voided, ids.refunded]) await pay(id)
  await cli.json(['checkout', 'void', ids.voided, '--reason', 'customer cancelled', '--yes'])
  // The next day: the unpaid checkout has expired on the sandbox's clock, and a refund is allowed.
  expect((await cli.run(['sandbox', 'clock', '--advance', '24h'])).code).toBe(0)
  await cli.json(['refund', 'create', ids.refunded, '--amount', '30.00', '--reason', 'one item returned', '--yes'])
})

afterAll(async () => {
  await sandbox?.stop()
  cli?.cleanup()
  if (folder) rmSync(folder, {force: true, recursive: true})
})

function file(name: string, text: string): string {
  const path = join(folder, name)
  writeFileSync(path, text)
  return path
}

const verdicts = (doc: any) => Object.fromEntries(doc.rows.map((r: any) => [r.checkoutId, r.verdict]))

describe('checkout reconcile against the sandbox', () => {
  it("the shop's file right: every row matches, the totals agree, exit 0", async () => {
    const path = file(
      'right.csv',
      [
        'checkoutId,amount,currency,state,reference,refunded',
        `${ids.paid},100.00,PHP,paid,ORDER-1,`,
        `${ids.voided},50.00,PHP,voided,ORDER-2,`,
        // The reference holds a comma and a line break: csv-parse reads it as one field.
        `${ids.refunded},80.00,PHP,refunded,"ORDER-3, returned\nin part",30.00`,
        `${ids.expired},40.00,PHP,unpaid,ORDER-4,`,
      ].join('\n') + '\n',
    )
    const result = await cli.run(['checkout', 'reconcile', '--from-file', path, '--json'])
    expect(result.code, result.stderr).toBe(0)
    const doc = JSON.parse(result.stdout)
    expect(verdicts(doc)).toEqual({[ids.expired]: 'match', [ids.paid]: 'match', [ids.refunded]: 'match', [ids.voided]: 'match'})
    const byId = Object.fromEntries(doc.rows.map((r: any) => [r.checkoutId, r]))
    expect(byId[ids.expired].service).toMatchObject({paid: '0.00', state: 'expired', total: '40.00'})
    expect(byId[ids.voided].service).toMatchObject({paid: '50.00', state: 'voided', voided: '50.00'})
    expect(byId[ids.refunded]).toMatchObject({line: 4, reference: 'ORDER-3, returned\nin part', service: {paid: '80.00', refunded: '30.00', state: 'refunded'}})
    const totals = {net: '150.00', paid: '230.00', refunded: '30.00', rows: 4, voided: '50.00'}
    expect(doc.totals).toEqual([
      {currency: 'PHP', side: 'shop', ...totals},
      {currency: 'PHP', side: 'service', ...totals},
    ])
    expect(result.stderr).toContain('4 rows: 4 match')
  })

  it("the shop's file wrong: each difference named, the differing rows first in the table, exit 1", async () => {
    const lines = [
      'checkoutId,amount,currency,state,refunded',
      `${ids.paid},100.00,PHP,paid,`,
      `${ids.voided},50.00,PHP,paid,`,
      `${ids.refunded},80.00,PHP,refunded,40.00`,
      `${ids.expired},45.00,PHP,unpaid,`,
      `${UNKNOWN},10.00,PHP,paid,`,
    ]
    const path = file('wrong.csv', lines.join('\n') + '\n')
    const result = await cli.run(['checkout', 'reconcile', '--from-file', path, '--json'])
    expect(result.code, result.stderr).toBe(1)
    const doc = JSON.parse(result.stdout)
    expect(doc.rows.map((r: any) => [r.checkoutId, r.verdict])).toEqual([
      [UNKNOWN, 'unknown'],
      [ids.voided, 'state-differs'],
      [ids.refunded, 'amount-differs'],
      [ids.expired, 'amount-differs'],
      [ids.paid, 'match'],
    ])
    expect(doc.rows[0]).toMatchObject({service: null, shop: {amount: '10.00', state: 'paid'}})
    expect(doc.totals).toEqual([
      {currency: 'PHP', net: '200.00', paid: '240.00', refunded: '40.00', rows: 5, side: 'shop', voided: '0.00'},
      {currency: 'PHP', net: '150.00', paid: '230.00', refunded: '30.00', rows: 4, side: 'service', voided: '50.00'},
    ])

    // The same file as JSON lines on standard input, --only-differences, in a table for people.
    const jsonLines = lines
      .slice(1)
      .map((l) => l.split(','))
      .map(([checkoutId, amount, currency, state, refunded]) => JSON.stringify({amount, checkoutId, currency, state, ...(refunded ? {refunded} : {})}))
      .join('\n')
    const table = await cli.run(['checkout', 'reconcile', '--from-file', '-', '--only-differences'], {input: jsonLines + '\n'})
    expect(table.code, table.stderr).toBe(1)
    const out = table.stdout
    expect(out).not.toContain(ids.paid)
    expect(out.indexOf(UNKNOWN)).toBeLessThan(out.indexOf(ids.voided))
    expect(out).toContain('paid 50.00 PHP')
    expect(out).toContain('voided 50.00 PHP')
    expect(out).toContain('refunded 30.00 of 80.00 PHP')
    expect(out).toMatch(/Totals:\n.*currency.*net/)
    expect(table.stderr).toContain('5 rows: 1 unknown, 1 state-differs, 2 amount-differs, 1 match')

    // For accounting: a CSV of every row.
    const csv = await cli.run(['checkout', 'reconcile', '--from-file', path, '-o', 'csv'])
    expect(csv.code).toBe(1)
    const [header, ...rows] = csv.stdout.trimEnd().split('\n')
    expect(header).toBe('line,checkoutId,reference,verdict,shop.state,shop.amount,shop.refunded,shop.currency,service.state,service.total,service.paid,service.voided,service.refunded,service.currency,service.stateAt,reason')
    expect(rows).toHaveLength(5)
  })

  it('--audit: the checkouts this machine created or changed that the file leaves out are rows of their own, not-in-file, read from the service; exit 1', async () => {
    const path = file('partial.csv', ['checkoutId,amount,currency,state', `${ids.paid},100.00,PHP,paid`, `${ids.voided},50.00,PHP,voided`].join('\n') + '\n')
    // The audit log's times are this machine's (real) clock, not the sandbox's: a duration back from now.
    const result = await cli.run(['checkout', 'reconcile', '--from-file', path, '--audit', '--since', '6h', '--json'])
    expect(result.code, result.stderr).toBe(1)
    const doc = JSON.parse(result.stdout)
    expect(verdicts(doc)).toEqual({[ids.expired]: 'not-in-file', [ids.paid]: 'match', [ids.refunded]: 'not-in-file', [ids.voided]: 'match'})
    const refunded = doc.rows.find((r: any) => r.checkoutId === ids.refunded)
    expect(refunded).toMatchObject({shop: null, service: {refunded: '30.00', state: 'refunded'}})
    expect(refunded.line).toBeUndefined()
    // the service's side counts what the file left out; the shop's only its two rows
    expect(doc.totals).toEqual([
      {currency: 'PHP', net: '100.00', paid: '150.00', refunded: '0.00', rows: 2, side: 'shop', voided: '50.00'},
      {currency: 'PHP', net: '150.00', paid: '230.00', refunded: '30.00', rows: 4, side: 'service', voided: '50.00'},
    ])
    expect(result.stderr).toContain('4 rows: 2 not-in-file, 2 match')

    const without = await cli.run(['checkout', 'reconcile', '--from-file', path, '--json'])
    expect(without.code, without.stderr).toBe(0)
    const misplaced = await cli.run(['checkout', 'reconcile', '--from-file', path, '--since', '6h'])
    expect(misplaced.code).toBe(2)
    expect(misplaced.stderr).toContain('--audit')
  })

  it('refuses a malformed row, an unknown state and a file over the byte cap from a pipe before any read (exit 2)', async () => {
    const bad = await cli.run(['checkout', 'reconcile', '--from-file', file('bad.csv', `checkoutId,amount,currency,state\n${ids.paid},100.001,PHP,paid\n`)])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('bad.csv: line 2: amount: invalid amount "100.001": at most two decimals are allowed; nothing was sent')
    const state = await cli.run(['checkout', 'reconcile', '--from-file', file('state.csv', `checkoutId,amount,currency,state\n${ids.paid},100.00,PHP,settled\n`)])
    expect(state.code).toBe(2)
    expect(state.stderr).toContain('state: "settled" is not one of paid, voided, refunded, unpaid')

    // Rows of about 420 bytes through a named pipe, for ever: refused once past 16 MiB (before the 50,000-row cap).
    const fifo = join(folder, 'orders.fifo')
    execFileSync('mkfifo', [fifo])
    const big = cli.run(['checkout', 'reconcile', '--from-file', fifo])
    // The writer never ends on its own: only a reader that stops at the cap (a broken pipe) ends it.
    const endless = 'BEGIN { r = sprintf("%400s", ""); gsub(/ /, "x", r); print "checkoutId,amount,currency,state,reference"; for (i = 1; ; i++) printf "chk_%d,1.00,PHP,paid,%s\\n", i, r }'
    const sh = spawn('/bin/sh', ['-c', 'awk "$1" > "$0"', fifo, endless], {stdio: 'ignore'})
    const feed = new Promise<number>((resolve) => sh.on('close', (code) => resolve(code ?? 1)))
    const result = await big
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('is larger than 16 MiB; split it into several files. Nothing was sent')
    expect(await feed).not.toBe(0)
  })
})

describe('checkout reconcile against a hostile service', () => {
  it("a row whose refunds answer is a redirect, another's cut-off JSON: verdict error with the reason, never a match; exit 6 naming the row", async () => {
    const server = createServer((req, res) => {
      // /checkout/v1/checkouts/{id}[/refunds]
      const [id, refunds] = (req.url ?? '').split('/').slice(4)
      const headers = {'content-type': 'application/json', date: new Date('2026-11-21T03:00:00Z').toUTCString()}
      if (!refunds) {
        res.writeHead(200, headers).end(JSON.stringify(checkoutRecord({id, totalAmount: {currency: 'PHP', value: '1500.00'}})))
      } else if (id === 'chk_redirect') {
        res.writeHead(302, {location: 'http://127.0.0.1:9/elsewhere'}).end()
      } else if (id === 'chk_cutoff') {
        res.writeHead(200, headers).end('[{"id": "rfd_1", "amount": {"val')
      } else res.writeHead(200, headers).end('[]')
    })
    const loopback = await listenOnLoopback(server)
    try {
      const path = file('hostile.csv', 'checkoutId,amount,currency,state\nchk_fine,1500.00,PHP,paid\nchk_redirect,1500.00,PHP,paid\nchk_cutoff,1500.00,PHP,paid\n')
      const result = await cli.run(['checkout', 'reconcile', '--from-file', path, '--json'], {env: {OPSCTL_CHECKOUT_URL: `${loopback.origin}/checkout`}})
      expect(result.code, result.stderr).toBe(6)
      const doc = JSON.parse(result.stdout)
      expect(verdicts(doc)).toEqual({chk_cutoff: 'error', chk_fine: 'match', chk_redirect: 'error'})
      for (const row of doc.rows.filter((r: any) => r.verdict === 'error')) {
        expect(row.service).toBeNull()
        expect(row.reason).toMatch(/\S/)
      }

      expect(result.stderr).toMatch(/Reading checkout chk_(redirect|cutoff) \(line \d\) failed: /)
    } finally {
      await loopback.close()
    }
  })
})
