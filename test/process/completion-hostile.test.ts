/**
 * Tab completion against a hostile service, as a person meets it: a loopback service answers
 * `events list me` with ids that are shell code (`evt_$(touch pwned)`, backticks), a newline, a
 * glob (`/*`) and an escape sequence. A real bash, zsh and fish, each in a pseudo-terminal
 * (`script`), load `opsctl autocomplete <shell> --script` and are typed at: Tab, Enter. No file is
 * created, no listing of `/` appears, and the escape sequence never reaches the terminal.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, runCli} from '../e2e/harness.js'
import {LoopbackServers} from '../helpers/loopback-servers.js'
import {pathWithOpsctl, type Shell, SHELLS, skipShell, typeInto} from '../helpers/shell-terminal.js'

const TITLE = '\u001B]0;HACKED\u0007'
const HOSTILE = ['evt_$(touch pwned1)', 'evt_`touch pwned2`', 'evt_a\nevt_b', '/*', `evt_${TITLE}x`, 'evt_ok1']

const servers = new LoopbackServers()
let folder: string
let env: Record<string, string>

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'opsctl-hostile-'))
  const service = createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    if (req.url === '/api/users/me') return res.end(JSON.stringify({email: 'a@example.com', id: 'u1', role: 'patient'}))
    if (req.url?.startsWith('/api/users/u1/events?') || req.url === '/api/users/u1/events') {
      return res.end(JSON.stringify({events: HOSTILE.map((id) => ({date: '2026-03-01T00:00:00Z', id})), paging: {}}))
    }

    res.writeHead(404).end('{"message":"no such event"}')
  })
  const origin = await servers.listen(service)
  env = {
    ...baseEnv(),
    OPSCTL_CONFIG_DIR: join(folder, 'config'),
    OPSCTL_HEALTH_SESSION: 'hostile-session',
    OPSCTL_HEALTH_URL: origin,
    PATH: pathWithOpsctl(folder),
  }
})

afterAll(async () => {
  await servers.closeAll()
  if (folder) rmSync(folder, {force: true, recursive: true})
})

/** What a terminal shows while `keys` are typed into an interactive shell, run in a fresh empty folder; and that folder's files after. */
async function typeIntoEmpty(shell: Shell, keys: string): Promise<{files: string[]; screen: string}> {
  const cwd = mkdtempSync(join(folder, `${shell}-`))
  const screen = await typeInto(shell, keys, {cwd, env})
  return {files: readdirSync(cwd), screen}
}

describe('the ids a service sent', () => {
  it('are stored for Tab only when id-safe', async () => {
    const listed = await runCli(['events', 'list', 'me', '--json'], {env})
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).events).toHaveLength(HOSTILE.length)
    expect(JSON.parse(readFileSync(join(env.OPSCTL_CONFIG_DIR, 'recent-events.json'), 'utf8'))).toEqual({sandbox: ['evt_ok1']})
    // a file an older opsctl wrote, with every hostile id in it: Tab reads it below
    writeFileSync(join(env.OPSCTL_CONFIG_DIR, 'recent-events.json'), JSON.stringify({sandbox: HOSTILE}))
  })

  describe.each(SHELLS)('completed in a real %s', (shell) => {
    if (skipShell(shell)) {
      // eslint-disable-next-line mocha/no-skipped-tests -- the reason is the point: it shows in the report
      it.skip(`skipped: ${shell} is not installed (apt-get install ${shell})`, () => {})
      return
    }

    it('runs no code, globs nothing and prints no escape sequence on Tab and Enter', async () => {
      const typed = [
        'opsctl events get me evt_$\t\n',
        'opsctl events get me evt_a\t\n',
        'opsctl events get me \t\t\u0015\n',
        "opsctl complete -- events get me ''\n",
        // closed after Tab: offered nothing, the line is `evt_``; had the id been inserted, it would have run
        'opsctl events get me evt_`\t`\n',
      ].join('')
      const {files, screen} = await typeIntoEmpty(shell, typed)
      expect(files).toEqual([])
      expect(screen).not.toContain(TITLE)
      expect(screen).not.toContain('\u001B]0;')
      expect(screen).not.toMatch(/\/proc\b/)
      // the one id-safe id is still offered
      expect(screen).toContain('evt_ok1')
    })
  })
})
