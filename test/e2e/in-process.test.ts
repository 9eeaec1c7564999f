/**
 * The in-process runner (src/runtime/in-process.ts) against the real thing: the same command lines
 * run as `node bin/run.js` processes and in this process must give the same exit code, stdout and
 * stderr. Then what it must put back, and that a command that would prompt does not wait.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {runInProcess} from '../../src/runtime/in-process.js'
import {isolate, loadConfig} from '../helpers/command.js'
import {runCli} from './harness.js'

// oclif warns about unparsed commands only under NODE_ENV=test (vitest's, which the child inherits); a real run never prints it
const withoutTestWarnings = (text: string) =>
  text.replaceAll(/^\(node:\d+\) \[UnparsedCommand\].*\n?/gm, '').replaceAll(/^\(Use `node --trace-warnings.*\n?/gm, '')

describe('runInProcess gives what a process gives', () => {
  let configDir: string
  let env: Record<string, string>
  beforeAll(() => {
    configDir = mkdtempSync(join(tmpdir(), 'opsctl-in-process-'))
    // Port 9 (discard) on loopback: nothing listens there, so a request fails with a network error.
    env = {CI: 'true', NO_COLOR: '1', OPSCTL_CHECKOUT_URL: 'http://127.0.0.1:9/checkout', OPSCTL_CONFIG_DIR: configDir, OPSCTL_HEALTH_URL: 'http://127.0.0.1:9'}
  })
  afterAll(() => rmSync(configDir, {force: true, recursive: true}))

  const cases: [string, string[], number][] = [
    ['the version', ['--version'], 0],
    ['help of a topic', ['checkout'], 0],
    ['an unknown command (the not-found hook exits 2)', ['checkot', 'get', 'chk_1'], 2],
    ['a missing argument', ['checkout', 'get'], 2],
    ['an unknown flag, under --json', ['checkout', 'get', 'chk_1', '--amount', '1', '--json'], 2],
    ['a destructive command without --yes and without a terminal', ['checkout', 'void', 'chk_1', '--reason', 'late'], 2],
    ['a password it would have to ask for', ['users', 'login', '--email', 'patient@demo-clinic.test'], 2],
    ['a service that cannot be reached', ['checkout', 'get', 'chk_1', '--json'], 7],
  ]
  for (const [what, argv, code] of cases) {
    it(`${what}: opsctl ${argv.join(' ')} -> exit ${code}`, async () => {
      const child = await runCli(argv, {env})
      const here = await runInProcess(await loadConfig(), argv, {env})
      expect(child.code, child.stderr).toBe(code)
      expect({...here, stderr: withoutTestWarnings(here.stderr)}).toEqual({...child, stderr: withoutTestWarnings(child.stderr)})
    })
  }
})

/** What a command run in-process could leave changed behind it. */
function processState() {
  return {
    env: {...process.env},
    exitCode: process.exitCode,
    exit: process.exit,
    stderr: process.stderr.write,
    stdin: process.stdin,
    stdout: process.stdout.write,
  }
}

describe('runInProcess leaves the process as it found it', () => {
  // A config folder of its own: a refused void is audited, and must not land in the user's ~/.config/opsctl.
  let folder: ReturnType<typeof isolate>
  beforeEach(() => {
    folder = isolate()
  })
  afterEach(() => folder.cleanup())

  it('puts back the streams, stdin, exit code and environment, whatever the command did', async () => {
    const before = processState()
    const r = await runInProcess(await loadConfig(), ['checkout', 'get'], {env: {OPSCTL_PROFILE: 'nowhere'}})
    expect(r.code).toBe(2)
    expect(processState()).toEqual(before)
  })

  it("finds the next command after a help page (oclif's help rewrites the loaded command ids)", async () => {
    const config = await loadConfig()
    expect((await runInProcess(config, ['checkout', 'get', '--help'])).stdout).toContain('USAGE')
    const r = await runInProcess(config, ['checkout', 'get'])
    expect(withoutTestWarnings(r.stderr)).toMatch(/^Error: Missing the checkout id: opsctl checkout (get|void) CHECKOUTID$/m)
  })

  it('never prompts, even when this process sits at a terminal outside CI', async () => {
    const tty = {isTTY: {configurable: true, value: true, writable: true}}
    Object.defineProperties(process.stderr, tty)
    Object.defineProperties(process.stdin, tty)
    try {
      const r = await runInProcess(await loadConfig(), ['checkout', 'void', 'chk_1', '--reason', 'late'], {env: {CI: undefined}})
      expect(r.code).toBe(2)
      expect(withoutTestWarnings(r.stderr)).toMatch(/^Error: Void checkout chk_1 is destructive and needs confirmation/)
    } finally {
      delete (process.stderr as {isTTY?: boolean}).isTTY
      delete (process.stdin as {isTTY?: boolean}).isTTY
    }
  })
})
