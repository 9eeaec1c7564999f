/**
 * `sandbox diff` with a sandbox process and the built CLI as real processes (`npm run build` first):
 * the tenant it makes with --sandbox-url expires by itself (a TTL) and is deleted before the process
 * ends on Ctrl-C (SIGINT) or SIGTERM; and OPSCTL_SANDBOX_TOKEN goes only to the origin it is for
 * (OPSCTL_SANDBOX_URL), never to another loopback address a profile names.
 */
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, BIN, ROOT, runCli, type Sandbox, startSandbox} from './harness.js'

/** A loopback service that records every request's headers; `answer` decides, per request, to answer (200 `[]`) or to hold it. */
async function recordingServer(answer: (n: number) => boolean = () => true) {
  const seen: {headers: IncomingHttpHeaders; url: string}[] = []
  const held: (() => void)[] = []
  let waiting: (() => void) | undefined
  const server: Server = createServer((req, res) => {
    seen.push({headers: req.headers, url: req.url ?? ''})
    const reply = () => res.writeHead(200, {'content-type': 'application/json'}).end('[]')
    if (answer(seen.length)) reply()
    else {
      held.push(reply)
      waiting?.()
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const origin = `http://127.0.0.1:${(server.address() as {port: number}).port}`
  return {
    origin,
    seen,
    /** resolves once a request is held */
    held: () => (held.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => (waiting = resolve))),
    async close() {
      for (const reply of held.splice(0)) reply()
      server.closeAllConnections()
      server.close()
    },
  }
}

describe('sandbox diff edges (real processes)', () => {
  let sandbox: Sandbox
  let configDir: string
  beforeAll(async () => {
    sandbox = await startSandbox()
    configDir = mkdtempSync(join(tmpdir(), 'opsctl-diff-edges-'))
  })
  afterAll(async () => {
    await sandbox?.stop()
    rmSync(configDir, {force: true, recursive: true})
  })

  /** the token, and the origin it is for: the sandbox's */
  const envNow = () => ({OPSCTL_CONFIG_DIR: configDir, OPSCTL_SANDBOX_TOKEN: sandbox.token, OPSCTL_SANDBOX_URL: sandbox.origin})
  const addProfile = async (name: string, origin: string) => {
    const added = await runCli(['profile', 'add', name, '--env', 'sandbox', '--health-url', origin, '--checkout-url', `${origin}/checkout`], {env: envNow()})
    expect(added.code, added.stderr).toBe(0)
  }

  const tenantIds = async () => ((await sandbox.control('tenants')).tenants as {id: string}[]).map((t) => t.id)

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} while the probes run: the tenant made for the run is deleted before the process ends`, async () => {
      // theirs answers the reachability and credential checks, then holds every probe
      const theirs = await recordingServer((n) => n <= 2)
      try {
        await addProfile(`held-${signal}`, theirs.origin)
        const before = await tenantIds()
        const child = spawn(process.execPath, [BIN, 'sandbox', 'diff', '--against', `held-${signal}`, '--service', 'checkout', '--sandbox-url', sandbox.origin], {
          cwd: ROOT,
          env: {...baseEnv(), ...envNow()},
          stdio: ['ignore', 'ignore', 'pipe'],
        })
        let stderr = ''
        child.stderr.on('data', (d) => (stderr += d))
        const exited = once(child, 'exit')
        await theirs.held()

        // the run's tenant is there, with an expiry
        const during = (await sandbox.control('tenants')).tenants as {expiresAt?: string; id: string}[]
        const made = during.filter((t) => !before.includes(t.id))
        expect(made, stderr).toHaveLength(1)
        expect(Date.parse(made[0].expiresAt!) - Date.now()).toBeGreaterThan(50 * 60_000)

        child.kill(signal)
        const [code, ended] = await exited
        expect({code, ended}).toEqual({code: null, ended: signal})
        expect(await tenantIds()).toEqual(before)
      } finally {
        await theirs.close()
      }
    })
  }

  it('OPSCTL_SANDBOX_TOKEN is not sent to another loopback origin a profile names; it is to the origin OPSCTL_SANDBOX_URL names', async () => {
    const other = await recordingServer()
    try {
      await addProfile('other-loopback', other.origin)
      const diff = await runCli(['sandbox', 'diff', '--against', 'other-loopback', '--service', 'checkout', '--yes'], {env: envNow()})
      const clock = await runCli(['sandbox', 'clock', '-p', 'other-loopback'], {env: envNow()})
      expect(other.seen.length, diff.stderr + clock.stderr).toBeGreaterThan(0)
      expect(other.seen.some((r) => r.url.includes('/__sandbox/clock')), clock.stderr).toBe(true)
      const carrying = other.seen.filter((r) => JSON.stringify(r.headers).includes(sandbox.token))
      expect(carrying).toEqual([])

      // the same call with the variable naming that origin carries it: the check above can fail
      await runCli(['sandbox', 'clock', '-p', 'other-loopback'], {env: {...envNow(), OPSCTL_SANDBOX_URL: other.origin}})
      expect(other.seen.at(-1)?.headers.authorization).toBe(`Bearer ${sandbox.token}`)
    } finally {
      await other.close()
    }
  })
})
