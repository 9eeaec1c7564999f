/** Runs health command classes in-process against undici's MockAgent, with a temporary config folder. */
import {Config} from '@oclif/core'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {MockAgent} from 'undici'
import {vi} from 'vitest'

import {setDispatcher} from '../../src/lib/http/dispatcher.js'

export const ROOT = resolve(import.meta.dirname, '../..')
export const ORIGIN = 'http://127.0.0.1:4010'
export const JSON_HEADERS = {'content-type': 'application/json', 'x-ph-api-request-id': 'req-1', 'content-language': 'en-PH'}

let config: Config | undefined

export interface Harness {
  agent: MockAgent
  configDir: string
  calls(): {body?: unknown; headers: Record<string, any>; method: string; path: string}[]
  run(
    Cmd: {run(argv: string[], config: Config): Promise<unknown>},
    argv: string[],
  ): Promise<{code: number; stdout: string; stderr: string; result: unknown}>
  profiles(): any
  cleanup(): Promise<void>
}

export async function harness(): Promise<Harness> {
  config ??= await Config.load({root: ROOT})
  const configDir = mkdtempSync(join(tmpdir(), 'opsctl-health-cmd-'))
  process.env.OPSCTL_CONFIG_DIR = configDir
  for (const k of ['OPSCTL_HEALTH_SESSION', 'OPSCTL_HEALTH_URL', 'OPSCTL_PROFILE']) delete process.env[k]
  const agent = new MockAgent({enableCallHistory: true})
  agent.disableNetConnect()
  setDispatcher(agent)
  return {
    agent,
    configDir,
    calls() {
      return (agent.getCallHistory()?.calls() ?? []).map((c) => ({
        method: c.method,
        path: new URL(c.fullUrl).pathname + new URL(c.fullUrl).search,
        headers: c.headers as Record<string, any>,
        body: typeof c.body === 'string' && c.body ? JSON.parse(c.body) : undefined,
      }))
    },
    async run(Cmd, argv) {
      let stdout = ''
      let stderr = ''
      const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
        stdout += String(chunk)
        return true
      })
      const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
        stderr += String(chunk)
        return true
      })
      process.exitCode = 0
      let result: unknown
      try {
        result = await Cmd.run(argv, config!)
      } finally {
        out.mockRestore()
        err.mockRestore()
      }

      // oclif warns about unparsed commands only under NODE_ENV=test (vitest); a real run never prints it
      stderr = stderr.replaceAll(/^\(node:\d+\) \[UnparsedCommand\].*\n?/gm, '').replaceAll(/^\(Use `node --trace-warnings.*\n?/gm, '')
      const code = Number(process.exitCode ?? 0)
      process.exitCode = 0
      return {code, stdout, stderr, result}
    },
    profiles() {
      return JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8'))
    },
    async cleanup() {
      setDispatcher(undefined)
      await agent.close()
      rmSync(configDir, {force: true, recursive: true})
      delete process.env.OPSCTL_CONFIG_DIR
    },
  }
}

/** A profile already signed in as user u-1 with session sess-123. */
export async function signedIn(h: Harness, Login: any): Promise<void> {
  h.agent
    .get(ORIGIN)
    .intercept({path: '/api/sign-in', method: 'POST'})
    .reply(
      200,
      {id: 'u-1', email: 'ana@example.com', role: 'patient'},
      {headers: {...JSON_HEADERS, 'set-cookie': 'connect.sid=sess-123; Path=/; HttpOnly'}},
    )
  const r = await h.run(Login, ['--email', 'ana@example.com', '--password', 'pw-secret-1'])
  if (r.code !== 0) throw new Error(`login failed: ${r.stderr}`)
  h.agent.getCallHistory()?.clear()
}
