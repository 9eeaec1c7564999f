/**
 * Small files opsctl reads beside its config (a sandbox's control token, a bulk journal's lock):
 * a FIFO in a file's place is passed over at once. Read without O_NONBLOCK, it would wait for a
 * writer for ever, and with it the command (a synchronous read would block this test's worker too).
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {readSandboxToken, sandboxTokenPath, writeSandboxToken} from '../../../src/profiles/sandbox-tokens.js'
import {JournalLock} from '../../../src/runtime/bulk/journal.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-fifo-'))
})
afterEach(() => {
  rmSync(dir, {force: true, recursive: true})
})

describe('a FIFO in place of a small file', () => {
  it("a sandbox's control token: none found, and a real token file still is", async () => {
    const origin = 'http://127.0.0.1:4010'
    mkdirSync(join(dir, 'sandboxes'), {mode: 0o700})
    execFileSync('mkfifo', ['-m', '600', sandboxTokenPath(dir, origin)])
    expect(await readSandboxToken(dir, origin)).toBeUndefined()

    rmSync(sandboxTokenPath(dir, origin))
    await writeSandboxToken(dir, {origin, pid: process.pid, token: 'tok-1'})
    expect(await readSandboxToken(dir, origin)).toBe('tok-1')
  })

  it("a bulk journal's lock: read as no owner, so taken as a stale lock", async () => {
    const journal = join(dir, 'run.journal')
    execFileSync('mkfifo', ['-m', '600', `${journal}.lock`])
    const lock = await JournalLock.take(journal)
    expect(statSync(`${journal}.lock`).isFile()).toBe(true)
    await lock.release()
    expect(existsSync(`${journal}.lock`)).toBe(false)
  })
})
