import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ExitCode} from '../../../src/errors.js'
import {LockTimeoutError, withFileLock} from '../../../src/profiles/lock.js'

let dir: string
let file: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-lock-'))
  file = join(dir, 'counter.json')
})

afterEach(() => {
  rmSync(dir, {force: true, recursive: true})
})

describe('withFileLock', () => {
  it('read-modify-write cycles that yield half-way run one after another: no increment is lost', async () => {
    writeFileSync(file, '0')
    const increment = () =>
      withFileLock(file, async () => {
        const n = Number(readFileSync(file, 'utf8'))
        // without the lock, every cycle would read before any writes
        await new Promise(setImmediate)
        writeFileSync(file, String(n + 1))
      })
    await Promise.all(Array.from({length: 10}, increment))
    expect(readFileSync(file, 'utf8')).toBe('10')
    expect(existsSync(`${file}.lock`)).toBe(false)
  })

  it('a live lock is never broken: the other writer gives up after its wait, exit 1, its work not run', async () => {
    let entered!: () => void
    let leave!: () => void
    const inside = new Promise<void>((resolve) => {
      entered = resolve
    })
    const holder = withFileLock(file, () => {
      entered()
      return new Promise<void>((resolve) => {
        leave = resolve
      })
    })
    await inside
    let ran = false
    const error = await withFileLock(file, () => (ran = true), {waitMs: 300}).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(LockTimeoutError)
    expect(error).toMatchObject({exitCode: ExitCode.Unexpected})
    expect((error as Error).message).toBe(`${file} is locked by another opsctl (waited 0.3 s); nothing was changed`)
    expect(ran).toBe(false)
    leave()
    await holder
    expect(await withFileLock(file, () => 'free again')).toBe('free again')
  })
})
