/**
 * Small habits of a shell tool, on the built CLI (`npm run build` first): `--no-color` is taken by
 * every command and means NO_COLOR (help in a real terminal loses its bold headings); `help
 * exit-codes` states the contract the code keeps, every code of it.
 */
import {describe, expect, it} from 'vitest'

import {ExitCode} from '../../src/errors.js'
import {takeNoColor} from '../../src/startup/no-color.js'
import {BIN, runCli} from '../e2e/harness.js'

const quote = (word: string) => `'${word.replaceAll("'", String.raw`'\''`)}'`

/** What a real terminal shows for `opsctl ...argv` (escape codes kept). */
async function inTerminal(argv: string[]): Promise<string> {
  const command = [process.execPath, BIN, ...argv].map((w) => quote(w)).join(' ')
  const r = await runCli(['--quiet', '--return', '--command', command, '/dev/null'], {bin: 'script', env: {CI: undefined, NO_COLOR: undefined, TERM: 'xterm-256color'} as unknown as Record<string, string>})
  expect(r.code, r.stdout).toBe(0)
  return r.stdout
}

describe('--no-color', () => {
  it.each([
    [['help']],
    [['help', 'checkout']],
    [['profile', 'list']],
    [['autocomplete', 'bash']],
    [['checkout', 'void', 'chk_1', '--reason', 'test', '--dry-run']],
    [['sandbox', 'start', '--help']],
  ])('is accepted by `opsctl %s`', async (argv) => {
    const r = await runCli([...argv, '--no-color'])
    expect(r.stderr).not.toContain('--no-color')
    expect(r.code, r.stderr).toBe(0)
  })

  it('takes the colour out of help in a terminal, as NO_COLOR does', async () => {
    expect(await inTerminal(['checkout', 'list', '--help'])).toContain('\u001B[1mUSAGE')
    const plain = await inTerminal(['checkout', 'list', '--help', '--no-color'])
    expect(plain).toContain('USAGE')
    expect(plain).not.toContain('\u001B[')
  })

  it('after `--` is an argument like any other word', () => {
    const env: NodeJS.ProcessEnv = {}
    expect(takeNoColor(['api', 'health', 'GET', '/x', '--', '--no-color'], env)).toEqual(['api', 'health', 'GET', '/x', '--', '--no-color'])
    expect(env.NO_COLOR).toBeUndefined()
    expect(takeNoColor(['--no-color', 'help', '--', 'x'], env)).toEqual(['help', '--', 'x'])
    expect(env.NO_COLOR).toBe('1')
  })
})

describe('help exit-codes', () => {
  it('describes every exit code the commands use, one per line, in order', async () => {
    const r = await runCli(['help', 'exit-codes'])
    expect(r.code, r.stderr).toBe(0)
    const listed = [...r.stdout.matchAll(/^ {2}(\d+) +\S/gm)].map((m) => Number(m[1]))
    expect(listed).toEqual(Object.values(ExitCode).sort((a, b) => a - b))
    expect(r.stdout).toMatch(/^ {2}2 +usage or invalid input: nothing was sent/m)
    expect(r.stdout).toMatch(/^ {2}130 +Ctrl-C/m)
  })

  it('is listed, with environment, under HELP TOPICS in the root help', async () => {
    const r = await runCli(['help'])
    const topics = r.stdout.slice(r.stdout.indexOf('HELP TOPICS'))
    expect(topics).toMatch(/^ {2}help environment +\S/m)
    expect(topics).toMatch(/^ {2}help exit-codes +says what each exit code means/m)
  })
})
