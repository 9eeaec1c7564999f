/**
 * Node prints an uncaught exception itself, straight to file descriptor 2, past any wrapper of
 * process.stderr.write. bin/run.js routes it through the secret scrubber instead: a real process,
 * since what is under test is what Node does when nothing catches an error.
 */
import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../e2e/harness.js'

const SECRET = 'sk-fatal-Canary-7Hq2'

/** A process that registers SECRET and then fails, with or without the fatal-error guard; its exit code and stderr. */
function failingProcess(how: 'rejection' | 'throw', guarded: boolean): Promise<{code: number | null; stderr: string}> {
  const dist = (file: string) => pathToFileURL(join(ROOT, 'dist/http/secrets', file)).href
  const script = `
    const {registerSecret} = await import(${JSON.stringify(dist('registry.js'))})
    const {guardFatalErrors, guardOutputStreams} = await import(${JSON.stringify(dist('streams.js'))})
    guardOutputStreams()
    if (${guarded}) guardFatalErrors()
    registerSecret(${JSON.stringify(SECRET)})
    const error = new Error('the server said ' + ${JSON.stringify(SECRET)})
    if (${JSON.stringify(how)} === 'throw') setTimeout(() => { throw error }, 1)
    else Promise.reject(error)
  `
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, stderr}))
  })
}

describe('uncaught errors', () => {
  for (const how of ['throw', 'rejection'] as const) {
    it(`an uncaught ${how} is printed scrubbed, and the exit code is still 1`, async () => {
      const r = await failingProcess(how, true)
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('the server said [REDACTED]')
      expect(r.stderr).not.toContain(SECRET)
    })
  }

  it('without the guard Node prints the secret (what the guard is for)', async () => {
    const r = await failingProcess('throw', false)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(SECRET)
  })
})
