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
import {CODES} from '../../src/services/checkout/codes.js'
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

describe('lost answers and journals', () => {
  it('drop-after-commit on some rows: reconciled by reading back, not resent; one refund each', async () => {
    const ids = await refundable(6)
    await file.sandbox.control('faults', {next: [{kind: 'drop-after-commit', op: 'refundCheckout'}, {kind: 'drop-after-commit', op: 'refundCheckout'}]})
    const path = csv('dropped.csv', ids.map((id) => `${id},,,event cancelled`))
    const before = audit().length
    const result = await run(RefundCreate, ['--from-file', path, '--yes', '--json', '--concurrency', '2'])
    expect(result.code).toBe(0)
    const doc = JSON.parse(result.stdout)
    expect(doc.summary).toMatchObject({applied: 6, reconciled: 2, refused: 0, unknown: 0})
    expect(doc.results.filter((r: any) => r.reconciled)).toHaveLength(2)
    expect((await file.sandbox.control('faults')).pending).toEqual([])
    for (const id of ids) expect(await refundsOf(id)).toHaveLength(1)
    const lines = audit().slice(before)
    expect(lines.filter((l) => l.reconciled && l.outcome === 'applied')).toHaveLength(2)
    expect(lines.filter((l) => l.outcome === 'refused')).toEqual([])
  })

  it('a row journalled with its intent and no outcome (a killed run) is read back, reported applied, and nothing is sent for it', async () => {
    const [done, fresh] = await refundable(2)
    const path = csv('killed.csv', [`${done},25.00,PHP,event cancelled`, `${fresh},25.00,PHP,event cancelled`])
    // The run that was killed: its refund of `done` went out, and only its intent was journalled.
    const first = await run(RefundCreate, ['--from-file', path, '--yes', '--json'])
    expect(first.code).toBe(0)
    const journal = readFileSync(`${path}.journal`, 'utf8').trimEnd().split('\n')
    const header = journal[0]
    const intent = journal.find((l) => l.includes(done) && l.includes('"intent"'))!
    expect(JSON.parse(intent)).toMatchObject({amount: '25.00', currency: 'PHP', id: done, known: [], t: 'intent'})
    writeFileSync(`${path}.journal`, [header, intent].join('\n') + '\n')
    const before = audit().length

    const rerun = await run(RefundCreate, ['--from-file', path, '--yes', '--json'])
    const doc = JSON.parse(rerun.stdout)
    // `fresh` was refunded by the first run too, and the journal no longer says so: the rules refuse it (one refund per checkout).
    expect(doc.results.find((r: any) => r.checkoutId === done)).toMatchObject({outcome: 'applied', reconciled: true, refundId: (await refundsOf(done))[0].id})
    expect(doc.results.find((r: any) => r.checkoutId === fresh)).toMatchObject({code: CODES.refundExists, outcome: 'refused'})
    const lines = audit().slice(before).filter((l) => l.checkoutId === done)
    expect(lines).toEqual([expect.objectContaining({outcome: 'applied', reconciled: true})])
    expect(await refundsOf(done)).toHaveLength(1)
  })

  it('a journal of another input is refused (exit 2), nothing sent', async () => {
    const [a, b] = await refundable(2)
    const path = csv('one.csv', [`${a},10.00,PHP,x`])
    expect((await run(RefundCreate, ['--from-file', path, '--yes', '--json'])).code).toBe(0)
    const other = csv('two.csv', [`${b},10.00,PHP,x`])
    const result = await run(RefundCreate, ['--from-file', other, '--journal', `${path}.journal`, '--yes'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('belongs to another input')
    expect(await refundsOf(b)).toEqual([])
  })

  it('a damaged journal line is reported and trusted for nothing', async () => {
    const [a] = await refundable(1)
    const path = csv('damaged.csv', [`${a},10.00,PHP,x`])
    expect((await run(RefundCreate, ['--from-file', path, '--yes', '--json'])).code).toBe(0)
    writeFileSync(`${path}.journal`, readFileSync(`${path}.journal`, 'utf8') + '{"t":"outcome","id":"\u001B[2J\n')
    const result = await run(RefundCreate, ['--from-file', path, '--yes', '--json'])
    expect(result.stderr).toMatch(/1 line\(s\) of the journal .* could not be read \(line 4\)/)
    expect(JSON.parse(result.stdout).summary).toMatchObject({skipped: 1})
    expect(await refundsOf(a)).toHaveLength(1)
  })
})

describe('a journal cut short while it was created (killed before any intent)', () => {
  it.each([
    ['empty', ''],
    ['a first line cut short', '{"journal":"opsctl-bu'],
  ])('%s: the run goes ahead and writes a whole journal', async (_name, text) => {
    const [a] = await refundable(1)
    const path = csv(`cut-${text.length}.csv`, [`${a},10.00,PHP,x`])
    writeFileSync(`${path}.journal`, text)
    const result = await run(RefundCreate, ['--from-file', path, '--yes', '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).summary).toMatchObject({applied: 1})
    expect(JSON.parse(readFileSync(`${path}.journal`, 'utf8').split('\n')[0])).toMatchObject({journal: 'opsctl-bulk', kind: 'refund'})
  })
})

describe('plan, confirmation and input', () => {
  it('--dry-run plans without sending: exit 5 with the refused rows and why, no journal; exit 0 when every row is sendable', async () => {
    const ids = await refundable(3)
    const path = csv('plan.csv', [`${ids[0]},20.00,PHP,a`, `${ids[1]},500.00,PHP,b`, `${ids[2]},,,c`, `${ids[0]},1.00,PHP,again`, 'chk_x,12.345,PHP,d'])
    const result = await run(RefundCreate, ['--from-file', path, '--dry-run', '--json'])
    expect(result.code).toBe(5)
    const doc = JSON.parse(result.stdout)
    expect(doc.plan).toMatchObject({refused: 3, rows: 5, toSend: 2, totals: [{amount: '120.00', currency: 'PHP'}]})
    expect(doc.results.map((r: any) => [r.line, r.code])).toEqual([
      [3, CODES.amountOver],
      [5, 'duplicate-row'],
      [6, 'invalid-row'],
    ])
    expect(doc.results[2].message).toContain('at most two decimals')
    expect(result.stderr).toContain('Nothing was sent (--dry-run)')
    for (const id of ids) expect(await refundsOf(id)).toEqual([])
    expect(() => readFileSync(`${path}.journal`)).toThrow()

    const clean = csv('clean.csv', [`${ids[0]},20.00,PHP,a`])
    expect((await run(RefundCreate, ['--from-file', clean, '--dry-run'])).code).toBe(0)
  })

  it('without a terminal and without --yes: exit 2, nothing read or sent', async () => {
    const [a] = await refundable(1)
    const path = csv('noyes.csv', [`${a},10.00,PHP,x`])
    const result = await run(RefundCreate, ['--from-file', path])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('pass --yes')
    expect(await refundsOf(a)).toEqual([])
  })

  it('a header that is not the refund columns is refused whole (exit 2), with its name escaped', async () => {
    const path = join(folder, 'header.csv')
    writeFileSync(path, 'checkoutId,amount,colour\u001B[31m\nchk_1,1.00,red\n')
    const result = await run(RefundCreate, ['--from-file', path, '--yes'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('unknown column "colour\\u001b[31m"')
    expect(result.stderr).not.toContain('\u001B')
  })

  it('standard input needs --journal; with it, rows are read from stdin (JSON lines)', async () => {
    const [a] = await refundable(1)
    const lines = JSON.stringify({amount: '30.00', checkoutId: a, reason: 'from a pipe'}) + '\n'
    expect((await run(RefundCreate, ['--from-file', '-', '--yes'], {stdin: lines})).code).toBe(2)
    const result = await run(RefundCreate, ['--from-file', '-', '--journal', join(folder, 'stdin.journal'), '--yes', '--json'], {stdin: lines})
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).summary).toMatchObject({applied: 1})
    expect((await refundsOf(a))[0].amount.value).toBe('30.00')
  })
})

describe('checkout void --from-file', () => {
  it('one id per line: voids them on the transaction day; a second run skips them', async () => {
    const ids: string[] = await paidCheckouts({count: 3, origin: file.sandbox.origin, reference: `V${Math.random().toString(36).slice(2, 8)}`})
    const path = join(folder, 'voids.txt')
    writeFileSync(path, ids.join('\n') + '\n')
    const result = await run(CheckoutVoid, ['--from-file', path, '--reason', 'test orders', '--yes'])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('3 voids applied (300.00 PHP), 0 refused, 0 unknown, 0 skipped')
    const again = await run(CheckoutVoid, ['--from-file', path, '--reason', 'test orders', '--yes', '--json'])
    expect(JSON.parse(again.stdout).summary).toMatchObject({applied: 0, skipped: 3})
  })

  it('a lost answer is read back, and a void journalled without its outcome is found VOIDED on the rerun: nothing resent', async () => {
    const ids: string[] = await paidCheckouts({count: 2, origin: file.sandbox.origin, reference: `W${Math.random().toString(36).slice(2, 8)}`})
    const path = join(folder, 'voids-lost.csv')
    writeFileSync(path, `checkoutId,reason\n${ids[0]},duplicate\n${ids[1]},"test, again"\n`)
    await file.sandbox.control('faults', {next: [{kind: 'drop-after-commit', op: 'voidCheckout'}]})
    const first = await run(CheckoutVoid, ['--from-file', path, '--yes', '--json', '--concurrency', '1'])
    expect(first.code, first.stderr).toBe(0)
    expect(JSON.parse(first.stdout).summary).toMatchObject({applied: 2, reconciled: 1})

    // As if killed between the DELETE and its outcome: the journal keeps the first void's intent only.
    const lines = readFileSync(`${path}.journal`, 'utf8').trimEnd().split('\n')
    writeFileSync(`${path}.journal`, [lines[0], lines.find((l) => l.includes(ids[0]) && l.includes('"intent"'))].join('\n') + '\n')
    const before = audit().length
    const rerun = await run(CheckoutVoid, ['--from-file', path, '--yes', '--json'])
    const doc = JSON.parse(rerun.stdout)
    expect(doc.results.find((r: any) => r.checkoutId === ids[0])).toMatchObject({outcome: 'applied', reconciled: true})
    const sent = audit()
      .slice(before)
      .filter((l) => l.checkoutId === ids[0])
    expect(sent).toEqual([expect.objectContaining({outcome: 'applied', reconciled: true})])
  })
})
