import {mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {z} from 'zod'

import {appendAudit, auditPath, entryFromAttempt} from '../../src/audit/log.js'
import {damagedWarning, readAudit} from '../../src/audit/read.js'
import {operation} from '../../src/http/operation.js'

const refund = operation({
  id: 'refundCheckout',
  service: 'checkout',
  method: 'POST',
  path: '/v1/checkouts/{checkoutId}/refunds',
  auth: 'secret',
  body: z.looseObject({reason: z.string()}),
  successStatus: 200,
  idempotent: false,
  audited: true,
})

describe('audit log', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, {force: true, recursive: true})
  })

  it('turns an attempt into a line with ids, amount and outcome, and appends it with mode 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-audit-'))
    dirs.push(dir)
    const entry = entryFromAttempt(
      {
        body: {amount: {currency: 'PHP', value: '10.00'}, reason: 'damaged'},
        data: {refundId: 'rf_1', status: 'SUCCESS'},
        operation: refund,
        outcome: 'applied',
        params: {checkoutId: 'chk_1'},
        requestId: 'req-9',
        status: 200,
      },
      'sandbox',
      'sandbox',
      new Date('2026-11-21T10:00:00Z'),
    )
    expect(entry).toMatchObject({
      amount: {currency: 'PHP', value: '10.00'},
      checkoutId: 'chk_1',
      operation: 'refundCheckout',
      outcome: 'applied',
      refundId: 'rf_1',
      requestId: 'req-9',
    })
    await appendAudit(dir, entry)
    await appendAudit(dir, {...entry, outcome: 'refused'})
    const {entries} = await readAudit(dir)
    expect(entries.map((e) => e.outcome)).toEqual(['applied', 'refused'])
    expect(statSync(auditPath(dir)).mode & 0o777).toBe(0o600)
  })

  it('scrubs any secret that reaches a message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-audit-'))
    dirs.push(dir)
    await appendAudit(
      dir,
      {env: 'sandbox', message: 'bad key sk-live-abcdef123456', operation: 'x', outcome: 'failed', profile: 'p', time: 't'},
      ['sk-live-abcdef123456'],
    )
    expect(readFileSync(auditPath(dir), 'utf8')).not.toContain('sk-live-abcdef123456')
  })

  it('skips a torn line and counts it; a last line still being written is skipped without a word', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-audit-'))
    dirs.push(dir)
    await appendAudit(dir, {env: 'sandbox', operation: 'x', outcome: 'applied', profile: 'p', time: 't'})
    const {appendFileSync} = await import('node:fs')
    // A writer mid-append: no newline yet.
    appendFileSync(auditPath(dir), '{"time": "torn')
    expect(await readAudit(dir)).toEqual({entries: [expect.objectContaining({operation: 'x'})], damaged: [], empty: false})
    // The next line ends it: a torn line.
    await appendAudit(dir, {env: 'sandbox', operation: 'y', outcome: 'applied', profile: 'p', time: 't'})
    const {damaged, entries} = await readAudit(dir)
    expect(entries.map((e) => e.operation)).toEqual(['x'])
    expect(damaged).toEqual([{line: 2, why: 'not JSON (a torn write?)'}])
  })

  it('reads a null optional field as absent, and a null required one as missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-audit-'))
    dirs.push(dir)
    const base = {env: 'sandbox', operation: 'voidCheckout', outcome: 'applied', profile: 'p', time: '2026-11-21T10:00:00.000Z'}
    const {writeFileSync} = await import('node:fs')
    writeFileSync(
      auditPath(dir),
      [JSON.stringify({...base, checkoutId: null, code: null}), JSON.stringify({...base, outcome: null}), ''].join('\n'),
    )
    const {damaged, entries} = await readAudit(dir)
    expect(entries).toEqual([base])
    expect(damaged).toEqual([{line: 2, why: 'outcome: missing'}])
  })

  it('skips a damaged line of any kind, naming its line number, and reads the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-audit-'))
    dirs.push(dir)
    const good = JSON.stringify({
      env: 'sandbox',
      operation: 'voidCheckout',
      outcome: 'applied',
      profile: 'p',
      time: '2026-11-21T10:00:00.000Z',
    })
    const {writeFileSync} = await import('node:fs')
    writeFileSync(
      auditPath(dir),
      [
        good,
        'null',
        '42',
        '"text"',
        '[1]',
        JSON.stringify({env: 'sandbox', operation: 7, outcome: 'applied', profile: 'p', time: 't'}),
        '{"time": 1',
        `{"message": "${'x'.repeat(200_000)}"}`,
        good,
        '',
      ].join('\n'),
    )
    const {damaged, entries} = await readAudit(dir)
    expect(entries).toHaveLength(2)
    expect(damaged).toEqual([
      {line: 2, why: 'not an entry (null)'},
      {line: 3, why: 'not an entry (number)'},
      {line: 4, why: 'not an entry (string)'},
      {line: 5, why: 'not an entry (a list)'},
      {line: 6, why: 'operation: of the wrong type'},
      {line: 7, why: 'not JSON (a torn write?)'},
      {line: 8, why: 'longer than 65536 bytes'},
    ])
    expect(damagedWarning('/c/audit.jsonl', damaged.slice(0, 1))).toBe(
      'Warning: skipped 1 damaged line(s) of /c/audit.jsonl: line 2 (not an entry (null)); the rest is shown',
    )
    expect(damagedWarning('/c/audit.jsonl', [])).toBeUndefined()
  })
})
