/** Fixtures for command tests of the health commands (the harness is ./command.ts). */
import {type CommandHarness, ORIGIN, type Runnable} from './command.js'

export const JSON_HEADERS = {'content-type': 'application/json', 'x-ph-api-request-id': 'req-1', 'content-language': 'en-PH'}

/** The service's answer to one sign-in as ana@example.com (user u-1), setting this session cookie. */
export function replySignIn(h: CommandHarness, session: string): void {
  h.agent
    .get(ORIGIN)
    .intercept({path: '/api/sign-in', method: 'POST'})
    .reply(
      200,
      {id: 'u-1', email: 'ana@example.com', role: 'patient'},
      {headers: {...JSON_HEADERS, 'set-cookie': `connect.sid=${session}; Path=/; HttpOnly`}},
    )
}

/** A profile already signed in as user u-1 with session sess-123. */
export async function signedIn(h: CommandHarness, Login: Runnable): Promise<void> {
  replySignIn(h, 'sess-123')
  const r = await h.run(Login, ['--email', 'ana@example.com', '--password', 'pw-secret-1'])
  if (r.code !== 0) throw new Error(`login failed: ${r.stderr}`)
  h.agent.getCallHistory()?.clear()
}
