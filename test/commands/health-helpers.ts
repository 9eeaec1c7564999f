/** Runs health command classes in-process against undici's MockAgent, with a temporary config folder. */
import type {MockAgent} from 'undici'

import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {isolate, mockServices, type RecordedCall, runCommand} from './run-command.js'

export const ORIGIN = 'http://127.0.0.1:4010'
export const JSON_HEADERS = {'content-type': 'application/json', 'x-ph-api-request-id': 'req-1', 'content-language': 'en-PH'}

export interface Harness {
  agent: MockAgent
  configDir: string
  calls(): RecordedCall[]
  run(Cmd: Parameters<typeof runCommand>[0], argv: string[]): Promise<{code: number; stdout: string; stderr: string; result: unknown}>
  profiles(): any
  cleanup(): Promise<void>
}

export async function harness(): Promise<Harness> {
  const isolated = isolate()
  const services = mockServices()
  return {
    agent: services.agent,
    calls: services.calls,
    async cleanup() {
      await services.close()
      isolated.cleanup()
    },
    configDir: isolated.dir,
    profiles: () => JSON.parse(readFileSync(join(isolated.dir, 'profiles.json'), 'utf8')),
    run: (Cmd, argv) => runCommand(Cmd, argv),
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

export {ROOT} from './run-command.js'
