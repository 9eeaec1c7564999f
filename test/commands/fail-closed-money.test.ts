/**
 * Money decides only on what it read (issue 45): a void or refund whose reads before sending (the
 * checkout, its refunds) answer something that cannot be read is not sent, single or from a file.
 * A real loopback service answers those reads in every odd shape; it counts the writes it saw.
 * Its refunds list holds a full refund already: a list misread as empty would refund twice.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {readAudit} from '../../src/audit/read.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import RefundCreate from '../../src/commands/refund/create.js'
import {checkoutRecord} from '../helpers/checkout.js'
import {isolate, runCommand} from '../helpers/command.js'
import {type Answer, hostile, type HostileService, hostileService, json, JSON_TYPE, type Shape, SHAPES} from '../helpers/hostile-service.js'

const CHECKOUT = '/checkout/v1/checkouts/chk_1'
const REFUNDS = `${CHECKOUT}/refunds`
// Paid at 10:05 on 21 Nov in Manila: voidable on the 21st (Manila), refundable from the 22nd.
const SAME_DAY = new Date('2026-11-21T06:00:00Z').toUTCString()
const NEXT_DAY = new Date('2026-11-22T06:00:00Z').toUTCString()
const FULL_REFUND = {id: 'rfd_1', status: 'SUCCESS', amount: {value: '1500.00', currency: 'PHP'}, reason: 'returned'}

let env: ReturnType<typeof isolate>
let folder: string
let service: HostileService | undefined
beforeEach(() => {
  env = isolate()
  folder = mkdtempSync(join(tmpdir(), 'opsctl-fail-closed-'))
})
afterEach(async () => {
  await service?.close()
  service = undefined
  rmSync(folder, {force: true, recursive: true})
  env.cleanup()
})

/** The service: the checkout and its refunds as given (a Date header of `now`), and writes that would succeed. */
async function serve(now: string, reads: {checkout?: Answer; refunds?: Answer}): Promise<HostileService> {
  const dated = (a: Answer): Answer => ({...a, headers: {...a.headers, date: now}})
  service = await hostileService(({method, path}) => {
    if (method === 'GET' && path === CHECKOUT) return dated(reads.checkout ?? json(checkoutRecord()))
    if (method === 'GET' && path === REFUNDS) return dated(reads.refunds ?? json([FULL_REFUND]))
    if (method === 'DELETE' && path === CHECKOUT) return json({checkoutId: 'chk_1', voidStatus: 'SUCCESS'})
    if (method === 'POST' && path === REFUNDS) return json({refundId: 'rfd_2', status: 'SUCCESS'})
    return undefined
  })
  return service
}

function run(Cmd: typeof CheckoutVoid | typeof RefundCreate, argv: string[], origin: string) {
  return runCommand(Cmd, argv, {env: {OPSCTL_CHECKOUT_URL: `${origin}/checkout`}})
}

function rows(text: string): string {
  const path = join(folder, 'rows.csv')
  writeFileSync(path, text)
  return path
}

async function auditLines() {
  return (await readAudit(env.dir)).entries
}

const VOID = ['chk_1', '--reason', 'duplicate order', '--yes']
const REFUND = ['chk_1', '--reason', 'damaged', '--full', '--yes']
const VOID_ROWS = 'checkoutId,reason\nchk_1,duplicate order\n'
const REFUND_ROWS = 'checkoutId,amount,currency,reason\nchk_1,1500.00,PHP,damaged\n'

/** Every read the money commands make: which command, which read answers oddly, and how the error names it. */
const READS: {name: string; read: 'checkout' | 'refunds'; now: string; Cmd: typeof CheckoutVoid | typeof RefundCreate; argv?: string[]; file?: string; what: string}[] = [
  {name: 'checkout void: the checkout', read: 'checkout', now: SAME_DAY, Cmd: CheckoutVoid, argv: VOID, what: 'checkout chk_1'},
  {name: 'refund create: the checkout', read: 'checkout', now: NEXT_DAY, Cmd: RefundCreate, argv: REFUND, what: 'checkout chk_1'},
  {name: 'refund create: its refunds', read: 'refunds', now: NEXT_DAY, Cmd: RefundCreate, argv: REFUND, what: 'the refunds of checkout chk_1'},
  {name: 'checkout void --from-file: the checkout', read: 'checkout', now: SAME_DAY, Cmd: CheckoutVoid, file: VOID_ROWS, what: 'checkout chk_1'},
  {name: 'refund create --from-file: the checkout', read: 'checkout', now: NEXT_DAY, Cmd: RefundCreate, file: REFUND_ROWS, what: 'checkout chk_1'},
  {name: 'refund create --from-file: its refunds', read: 'refunds', now: NEXT_DAY, Cmd: RefundCreate, file: REFUND_ROWS, what: 'the refunds of checkout chk_1'},
]

const good = {checkout: checkoutRecord(), refunds: [FULL_REFUND]}

describe('the service the tests use', () => {
  it('sees the write when the reads are good: a void, and a refund of a checkout with no refund yet', async () => {
    const voided = await serve(SAME_DAY, {})
    expect((await run(CheckoutVoid, VOID, voided.origin)).code).toBe(0)
    expect(voided.writes()).toEqual([{method: 'DELETE', path: CHECKOUT}])
    await voided.close()
    const refunded = await serve(NEXT_DAY, {refunds: json([])})
    expect((await run(RefundCreate, ['--from-file', rows(REFUND_ROWS), '--yes'], refunded.origin)).code).toBe(0)
    expect(refunded.writes()).toEqual([{method: 'POST', path: REFUNDS}])
  })

  it('a good list holding the full refund is refused by the rule (exit 5), nothing sent', async () => {
    const s = await serve(NEXT_DAY, {})
    const out = await run(RefundCreate, REFUND, s.origin)
    expect(out.code).toBe(5)
    expect(s.writes()).toEqual([])
  })
})

describe.each(READS)('$name answers oddly', ({Cmd, argv, file, now, read, what}) => {
  it.each(SHAPES.map((shape) => [shape]))('%s: exit 6, nothing sent, audited refused before sending', async (shape: Shape) => {
    const s = await serve(now, {[read]: hostile(shape, good[read], 'id')})
    const out = await run(Cmd, file ? ['--from-file', rows(file), '--yes', '--json'] : argv!, s.origin)

    expect(out.code, out.stderr).toBe(6)
    expect(s.writes()).toEqual([])
    const said = new RegExp(`^could not read ${what} \\(HTTP \\d{3}, .*\\); nothing was sent$`)
    if (file) {
      const {results, summary} = JSON.parse(out.stdout)
      expect(summary).toMatchObject({applied: 0, refused: 1, unknown: 0})
      expect(results).toEqual([expect.objectContaining({line: 2, checkoutId: 'chk_1', outcome: 'refused', code: 'unreadable-answer'})])
      expect(results[0].message).toMatch(said)
    } else {
      const errors = out.stderr.split('\n').filter((line) => line.startsWith('Error:'))
      expect(errors).toHaveLength(1)
      expect(errors[0].slice('Error: '.length)).toMatch(said)
      expect(out.stdout).toBe('')
    }

    const lines = await auditLines()
    expect(lines).toEqual([
      expect.objectContaining({operation: Cmd === CheckoutVoid ? 'voidCheckout' : 'refundCheckout', checkoutId: 'chk_1', outcome: 'refused locally', code: 'unreadable-answer'}),
    ])
    expect(lines[0].message).toMatch(said)
  })
})

describe('what the error names', () => {
  it('the status, the content type and the first problem, on one line; the body itself only under --verbose', async () => {
    const s = await serve(NEXT_DAY, {refunds: {status: 302, headers: {'content-type': 'text/html', location: 'https://login.example.com/sso'}, body: '<html><title>Moved</title></html>'}})
    const out = await run(RefundCreate, REFUND, s.origin)
    expect(out.stderr).toContain(
      'Error: could not read the refunds of checkout chk_1 (HTTP 302, text/html, a redirect to https://login.example.com/sso (redirects are not followed)); nothing was sent\n',
    )
    expect(out.stderr).not.toContain('<html>')
    const verbose = await run(RefundCreate, [...REFUND, '--verbose'], s.origin)
    expect(verbose.stderr).toContain('<html><title>Moved</title></html>')
    expect(s.writes()).toEqual([])
  })

  it('a body without a declared field names the field', async () => {
    const s = await serve(NEXT_DAY, {refunds: json([{...FULL_REFUND, id: 42}], 200)})
    const out = await run(RefundCreate, [...REFUND, '--json'], s.origin)
    expect(out.code).toBe(6)
    expect(JSON.parse(out.stderr).error.message).toBe(
      'could not read the refunds of checkout chk_1 (HTTP 200, application/json, 0.id: Invalid input: expected string, received number); nothing was sent',
    )
  })
})

describe('after sending', () => {
  it('a read-back after a lost answer that cannot be read leaves the outcome unknown (exit 7), never "not applied"', async () => {
    let reads = 0
    service = await hostileService(({method, path}) => {
      if (method === 'GET' && path === CHECKOUT) return {...json(checkoutRecord()), headers: {...JSON_TYPE, date: NEXT_DAY}}
      // The read before sending is good; the read-back after the lost answer is an HTML page.
      if (method === 'GET' && path === REFUNDS) return reads++ === 0 ? json([]) : hostile('html', [], 'id')
      // The server closes the connection: with a readable list and no new refund, this would be "not applied".
      if (method === 'POST' && path === REFUNDS) return {status: 0, hangUp: true}
      return undefined
    })
    const out = await run(RefundCreate, [...REFUND, '--json'], service.origin)
    expect(out.code, out.stderr).toBe(7)
    const {error} = JSON.parse(out.stderr)
    expect(error).toMatchObject({reconciled: 'unknown', outcomeUnknown: true})
    expect(error.message).toContain('reading the refunds of checkout chk_1 failed too (the listRefunds answer could not be read: HTTP 200, text/html')
    expect(service.writes()).toHaveLength(1)
    expect((await auditLines()).map((l) => l.outcome)).toEqual(['unknown'])
  })

  it('an answer to the refund itself that cannot be read is read back like a lost one: no new refund listed -> exit 6, the outcome unknown', async () => {
    service = await hostileService(({method, path}) => {
      if (method === 'GET' && path === CHECKOUT) return {...json(checkoutRecord()), headers: {...JSON_TYPE, date: NEXT_DAY}}
      if (method === 'GET' && path === REFUNDS) return json([])
      if (method === 'POST' && path === REFUNDS) return {status: 200, headers: JSON_TYPE, body: '{"refundId":'}
      return undefined
    })
    const out = await run(RefundCreate, REFUND, service.origin)
    expect(out.code).toBe(6)
    expect(out.stderr).toContain(
      'Error: the refundCheckout answer could not be read: HTTP 200, application/json, a body that is not valid JSON (cut off or malformed). The outcome is unknown',
    )
    expect(service.writes()).toHaveLength(1)
    // The attempt (unknown), then what the read-back found (unknown: the service answered, so it may still apply it).
    const lines = await auditLines()
    expect(lines.map((l) => [l.outcome, l.reconciled === true])).toEqual([
      ['unknown', false],
      ['unknown', true],
    ])
  })

  it('an answer to the refund itself that cannot be read, and the read-back lists the new refund: applied, exit 0, reconciled', async () => {
    let reads = 0
    service = await hostileService(({method, path}) => {
      if (method === 'GET' && path === CHECKOUT) return {...json(checkoutRecord()), headers: {...JSON_TYPE, date: NEXT_DAY}}
      if (method === 'GET' && path === REFUNDS) return json(reads++ === 0 ? [] : [{...FULL_REFUND, id: 'rfd_2'}])
      if (method === 'POST' && path === REFUNDS) return {status: 200, headers: JSON_TYPE, body: '<html>proxy</html>'}
      return undefined
    })
    const out = await run(RefundCreate, [...REFUND, '--json'], service.origin)
    expect(out.code, out.stderr).toBe(0)
    expect(JSON.parse(out.stdout)).toMatchObject({refundId: 'rfd_2', reconciled: true})
    expect(service.writes()).toHaveLength(1)
    const lines = await auditLines()
    expect(lines.map((l) => [l.outcome, l.reconciled === true])).toEqual([
      ['unknown', false],
      ['applied', true],
    ])
  })
})
