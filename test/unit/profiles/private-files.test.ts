import {chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {appendAudit, auditPath} from '../../../src/audit/log.js'
import {readAudit} from '../../../src/audit/read.js'

let dir: string
const mode = (path: string) => statSync(path).mode & 0o777
const entry = (operation: string) => ({env: 'sandbox', operation, outcome: 'applied', profile: 'sandbox', time: '2026-11-21T10:00:00.000Z'})

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-modes-'))
})

afterEach(() => {
  rmSync(dir, {force: true, recursive: true})
})

describe('the audit log in the config folder', () => {
  it('an existing 0644 audit.jsonl in a 0755 folder becomes 0600 in a 0700 folder at the next append, lines kept', async () => {
    chmodSync(dir, 0o755)
    writeFileSync(auditPath(dir), JSON.stringify(entry('voidCheckout')) + '\n', {mode: 0o644})
    chmodSync(auditPath(dir), 0o644)
    await appendAudit(dir, entry('refundCheckout'))
    expect(mode(auditPath(dir))).toBe(0o600)
    expect(mode(dir)).toBe(0o700)
    expect((await readAudit(dir)).entries.map((e) => e.operation)).toEqual(['voidCheckout', 'refundCheckout'])
  })

  it('a missing folder and file are created 0700 and 0600', async () => {
    const nested = join(dir, 'a', 'b')
    await appendAudit(nested, entry('deleteWebhook'))
    expect(mode(join(dir, 'a'))).toBe(0o700)
    expect(mode(nested)).toBe(0o700)
    expect(mode(auditPath(nested))).toBe(0o600)
    expect(readFileSync(auditPath(nested), 'utf8').trim().split('\n')).toHaveLength(1)
  })
})
