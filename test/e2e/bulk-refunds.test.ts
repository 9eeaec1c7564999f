/**
 * Bulk refunds and voids from a file (issue 24), in-process against the real sandbox: planned
 * before anything is sent, confirmed once, journalled, resumable, never twice. The kill -9 runs
 * and the terminal are in bulk-process.test.ts.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

// @ts-expect-error a plain .mjs helper shared with the benchmark
import {moveClock, paidCheckouts} from '../../bench/lib/paid-checkouts.mjs'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import RefundCreate from '../../src/commands/refund/create.js'
import {runCommand as run} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

// 10:00 in Manila: payments made now can be voided today and refunded from tomorrow.
const START = '2026-11-21T02:00:00Z'
const file = sandboxPerFile({clock: START})
let folder: string

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'opsctl-bulk-'))
})
afterAll(() => rmSync(folder, {force: true, recursive: true}))

/** Paid checkouts, then the clock moved a day on: refunds are open for them. */
async function refundable(count: number, amount = '100.00'): Promise<string[]> {
  const ids: string[] = await paidCheckouts({amount, count, origin: file.sandbox.origin, reference: `R${Math.random().toString(36).slice(2, 8)}`})
  await moveClock({origin: file.sandbox.origin, token: file.sandbox.token})
  return ids
}

/** The service's refunds of a checkout, read without the CLI. */
async function refundsOf(id: string): Promise<{id: string; status: string; amount: {value: string}}[]> {
  const res = await fetch(`${file.sandbox.checkoutUrl}/v1/checkouts/${id}/refunds`, {
    headers: {authorization: `Basic ${Buffer.from(`${file.sandbox.secretKey}:`).toString('base64')}`},
  })
  return res.json() as Promise<any>
}

function audit(): {operation: string; checkoutId?: string; outcome: string; code?: string; reconciled?: boolean}[] {
  let text: string
  try {
    text = readFileSync(join(file.user.dir, 'audit.jsonl'), 'utf8')
  } catch {
    return []
  }

  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
}

function csv(name: string, rows: string[]): string {
  const path = join(folder, name)
  writeFileSync(path, ['checkoutId,amount,currency,reason', ...rows].join('\n') + '\n')
  return path
}

describe('refund create --from-file', () => {
  it('50 rows, 5 refused by the rules: 45 applied, 5 refused with reasons, exit 5, one audit line each; a rerun applies nothing new', async () => {
    const ids = await refundable(50)
    // Rows 10, 20, 30, 40, 50 ask for more than was paid.
    const rows = ids.map((id, i) => `${id},${(i + 1) % 10 === 0 ? '150.00' : '40.00'},PHP,event cancelled`)
    const path = csv('fifty.csv', rows)
    const before = audit().length

    const result = await run(RefundCreate, ['--from-file', path, '--yes', '--json'])
    expect(result.code).toBe(5)
    const doc = JSON.parse(result.stdout)
    expect(doc.summary).toMatchObject({applied: 45, refused: 5, rows: 50, skipped: 0, totals: [{amount: '1800.00', currency: 'PHP'}], unknown: 0})
    expect(doc.results).toHaveLength(50)
    const refused = doc.results.filter((r: any) => r.outcome === 'refused')
    expect(refused.map((r: any) => r.line)).toEqual([11, 21, 31, 41, 51])
    for (const r of refused) expect(r.message).toMatch(/150\.00 PHP is more than the 100\.00 PHP/)
    expect(doc.results.filter((r: any) => r.outcome === 'applied').every((r: any) => /\S/.test(r.refundId))).toBe(true)

    const lines = audit().slice(before).filter((l) => l.operation === 'refundCheckout')
    expect(lines.filter((l) => l.outcome === 'applied')).toHaveLength(45)
    expect(lines.filter((l) => l.outcome === 'refused by rule')).toHaveLength(5)
    for (const id of ids) expect((await refundsOf(id)).length).toBe(ids.indexOf(id) % 10 === 9 ? 0 : 1)

    const again = await run(RefundCreate, ['--from-file', path, '--yes', '--json'])
    const second = JSON.parse(again.stdout)
    expect(second.summary).toMatchObject({applied: 0, refused: 5, skipped: 45, unknown: 0})
    expect(again.code).toBe(5)
    for (const id of ids) expect((await refundsOf(id)).length).toBe(ids.indexOf(id) % 10 === 9 ? 0 : 1)
  })
})
