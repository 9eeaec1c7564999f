/**
 * In a terminal, a mistyped destructive command followed by Enter must change nothing: the CLI once
 * asked "Did you mean customize remove? (Y/n)", defaulted to yes and removed the customization.
 * A real pseudo-terminal (`script`) and a real sandbox: the terminal is the point. Needs `npm run build`.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, type Cli, cliFor, runCli, type Sandbox, startSandbox} from '../e2e/harness.js'

let sandbox: Sandbox
let cli: Cli

beforeAll(async () => {
  sandbox = await startSandbox()
  cli = cliFor(sandbox)
})

afterAll(async () => {
  await sandbox?.stop()
  cli?.cleanup()
})

const quote = (word: string) => `'${word.replaceAll("'", String.raw`'\''`)}'`

/** Runs `opsctl ...argv` with a pseudo-terminal as its stdin, stdout and stderr, typing `keys`. */
function inTerminal(argv: string[], keys: string) {
  const command = [process.execPath, BIN, ...argv].map((w) => quote(w)).join(' ')
  return runCli(['--quiet', '--return', '--command', command, '/dev/null'], {bin: 'script', env: cli.env, input: keys})
}

describe('a mistyped destructive command in a terminal', () => {
  it('`customize remov --yes` + Enter names `customize remove`, exits 2, and the customization is still there', async () => {
    await cli.json(
      ['customize', 'set', '--title', 'Tea Shop', '--color', '#0a7d3b'].concat(
        ['--logo-url', 'https://cdn.example/logo.png', '--icon-url', 'https://cdn.example/favicon.ico'],
        ['--apple-touch-icon-url', 'https://cdn.example/touch.png'],
      ),
    )

    const r = await inTerminal(['customize', 'remov', '--yes'], '\r\n')

    expect(r.code).toBe(2)
    expect(r.stdout).toContain('`customize remov` is not a command. Did you mean `customize remove`?')
    expect(r.stdout).not.toMatch(/\(Y\/n\)/i)
    expect(await cli.json(['customize', 'get'])).toMatchObject({customTitle: 'Tea Shop'})
  })
})
