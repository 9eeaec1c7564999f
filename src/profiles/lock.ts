import {lock} from 'proper-lockfile'

import {ExitCode, OpsError} from '../errors.js'

/**
 * A lock whose holder stopped refreshing it for this long was left by a process that died (kill -9,
 * power loss); the next writer takes it over. A live holder refreshes it every STALE_LOCK_MS / 2
 * (proper-lockfile's timer), and a change to profiles.json holds it for milliseconds.
 */
export const STALE_LOCK_MS = 5000
/** How long a writer waits for the lock: long enough to outlast a stale lock, then give up. */
export const LOCK_WAIT_MS = 3 * STALE_LOCK_MS

export class LockTimeoutError extends OpsError {
  constructor(file: string, waitedMs: number) {
    super(`${file} is locked by another opsctl (waited ${waitedMs / 1000} s); nothing was changed`, ExitCode.Unexpected, [
      `Run the command again; if no opsctl is running, remove ${file}.lock`,
    ])
  }
}

/**
 * Runs `work` while holding `<file>.lock` (a folder made with mkdir, atomic across processes), so
 * that read-modify-write cycles of `file` by several processes happen one after the other.
 * `stillHeld()` throws if the lock was lost (taken over as stale) so that `work` can stop before it
 * writes over another process's change.
 */
export async function withFileLock<T>(
  file: string,
  work: (stillHeld: () => void) => Promise<T> | T,
  {waitMs = LOCK_WAIT_MS}: {waitMs?: number} = {},
): Promise<T> {
  let lost: Error | undefined
  let release: () => Promise<void>
  try {
    release = await lock(file, {
      onCompromised(error) {
        lost = error
      },
      realpath: false,
      retries: {factor: 1.5, forever: true, maxRetryTime: waitMs, maxTimeout: 100, minTimeout: 5, randomize: true},
      stale: STALE_LOCK_MS,
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new LockTimeoutError(file, waitMs)
    throw error
  }

  try {
    return await work(() => {
      if (lost) throw new OpsError(`Lost the lock on ${file} (${lost.message}); nothing was changed`, ExitCode.Unexpected)
    })
  } finally {
    // After a loss the lock folder belongs to whoever took it over: leave it alone. A release that
    // fails leaves a lock that the next writer takes over as stale; the change itself is written.
    if (!lost) await release().catch(() => undefined)
  }
}
