/**
 * The sandbox's state through real processes: the clock is saved with `--state` like every other
 * change (advanced 48 h through the CLI, it is still advanced after a restart: it only moves
 * forward), and `sandbox import` of a file nested 10,000 deep is refused with exit 2 and a
 * clear reason, not a crash, the sandbox untouched.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
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
})
