/**
 * The sandbox's state through real processes: the clock is saved with `--state` like every other
 * change (advanced 48 h through the CLI, it is still advanced after a restart: it only moves
 * forward), and `sandbox import` of a file nested 10,000 deep is refused with exit 2 and a
 * clear reason, not a crash, the sandbox untouched; so is a FIFO whose writer goes on past the
 * 256 MiB a sandbox imports (counted as it streams: a FIFO has no size), and /dev/zero (binary:
 * refused at its first byte), instead of a read that never ends.
 */
import {execFileSync} from 'node:child_process'
import {createWriteStream, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SANDBOX_STATE_MAX_DEPTH} from '../../src/services/sandbox-defaults.js'
import {cliFor, type Sandbox, startSandbox} from './harness.js'

const HOUR = 3_600_000

let dir: string
const started: Sandbox[] = []
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-state-bounds-'))
})
afterEach(async () => {
  for (const sandbox of started.splice(0)) await sandbox.stop()
  rmSync(dir, {force: true, recursive: true})
})

async function start(args: string[] = []): Promise<Sandbox> {
  const sandbox = await startSandbox(args)
  started.push(sandbox)
  return sandbox
}

describe('sandbox state (process)', () => {
  it('a clock advanced 48 h is still advanced after a restart on the same --state file', async () => {
    const file = join(dir, 'state.db')
    const first = await start(['--state', file])
    const cli = cliFor(first)
    try {
      const moved = await cli.json<{now: string}>(['sandbox', 'clock', '--advance', '48h'])
      expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(47 * HOUR)
      expect(await first.stop()).toBe(0)

      const second = await start(['--state', file])
      const again = cliFor(second)
      try {
        const now = await again.json<{now: string}>(['sandbox', 'clock'])
        expect(Date.parse(now.now)).toBeGreaterThanOrEqual(Date.parse(moved.now))
        expect(Date.parse(now.now) - Date.now()).toBeGreaterThan(47 * HOUR)
      } finally {
        again.cleanup()
      }
    } finally {
      cli.cleanup()
    }
  })

  it('sandbox import of JSON nested 10,000 deep: exit 2 naming the depth limit, and the sandbox answers, unchanged', async () => {
    const sandbox = await start()
    const cli = cliFor(sandbox)
    try {
      const before = await sandbox.control('state')
      const file = join(dir, 'deep.json')
      // objects in objects: the walks of JSON that recursed overflowed the stack (exit 1) from a few thousand levels
      writeFileSync(file, `{"version": 2, "health": {"users": [["u1", ${'{"a": '.repeat(10_000)}1${'}'.repeat(10_000)}]]}}`)
      const result = await cli.run(['sandbox', 'import', file, '--yes'])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(`is nested deeper than ${SANDBOX_STATE_MAX_DEPTH} levels`)
      expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(3)
      expect(await sandbox.control('state')).toEqual(before)
    } finally {
      cli.cleanup()
    }
  })

  it('sandbox import from a FIFO whose writer goes on past 256 MiB: exit 2 naming the limit, the sandbox unchanged', async () => {
    const sandbox = await start()
    const cli = cliFor(sandbox)
    const fifo = join(dir, 'state.fifo')
    execFileSync('mkfifo', [fifo])
    // opens once the CLI opens the FIFO to read; writes valid JSON text until the reader goes away (or 300 MiB)
    const writer = createWriteStream(fifo)
    let written = 0
    writer.on('error', () => {})
    const spaces = Buffer.alloc(1024 * 1024, ' ')
    const pump = () => {
      while (!writer.destroyed && written < 300 * 1024 * 1024) {
        written += spaces.length
        if (!writer.write(spaces)) {
          writer.once('drain', pump)
          return
        }
      }

      if (!writer.destroyed) writer.end('{"version": 2}')
    }

    writer.once('open', pump)
    try {
      const before = await sandbox.control('state')
      const result = await cli.run(['sandbox', 'import', fifo, '--yes'])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(`${fifo} is larger than 256 MiB, the most opsctl reads from it; nothing was sent`)
      expect(await sandbox.control('state')).toEqual(before)
    } finally {
      writer.destroy()
      cli.cleanup()
    }
  })

  it('sandbox import /dev/zero: exit 2 at its first byte (binary), not a read that fills memory', async () => {
    const sandbox = await start()
    const cli = cliFor(sandbox)
    try {
      // the bound only ends a process that would otherwise read forever
      const result = await cli.run(['sandbox', 'import', '/dev/zero', '--yes'], {timeoutMs: 30_000})
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('/dev/zero is not text (it holds a NUL byte at byte 0)')
    } finally {
      cli.cleanup()
    }
  })
})
