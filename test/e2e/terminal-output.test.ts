/**
 * Tables as a person sees them: in a pseudo-terminal 80 columns wide (`script`, `stty cols 80`)
 * no line of `events list` is wider than 80 and there are no boxes; piped, the same listing is
 * tab-separated with a header. A terminal is the point here, so these are real processes.
 */
import {spawn} from 'node:child_process'
import {describe, expect, it} from 'vitest'

import {baseEnv, BIN, type Cli, type Sandbox, sandboxForFile} from './harness.js'

let cli: Cli
let sandbox: Sandbox
sandboxForFile([], (started, user) => {
  sandbox = started
  cli = user
})

/** Runs opsctl in a pseudo-terminal of `cols` columns; stdout and stderr both arrive on the terminal. */
function inTerminal(argv: string[], cols: number): Promise<{code: number; screen: string}> {
  const quoted = [process.execPath, BIN, ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `stty cols ${cols}; ${quoted}`, '/dev/null'], {env: {...baseEnv(), ...cli.env}})
    let screen = ''
    child.stdout.on('data', (d) => (screen += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? 1, screen}))
  })
}

describe('events list in a terminal and in a pipe', () => {
  it('fits 80 columns without boxes; piped it is tab-separated with a header', async () => {
    const created = await cli.run(
      ['users', 'create', '--type', 'patient', '--email', 'tty@example.com', '--given-name', 'T', '--family-name', 'Y', '--time-zone', 'Asia/Manila', '--password-stdin'],
      {input: 'tty-Pass-4k2m'},
    )
    expect(created.code, created.stderr).toBe(0)
    for (const date of ['2026-03-01T15:30:00Z']) {
      const added = await cli.run(['events', 'add', 'me', '--date', date, '--medication-id', 'med-salbutamol', '--medication-type', 'rescue', '--symptom', 'cough,wheeze', '--address', 'a long street name in a city far away', '--no-plan-check'])
      expect(added.code, added.stderr).toBe(0)
    }

    const {code, screen} = await inTerminal(['events', 'list', 'me', '--columns', 'id,date,medicationId,symptoms,address,nightEvent'], 80)
    expect(code, screen).toBe(0)
    const lines = screen.split(/\r?\n/).filter(Boolean)
    expect(lines[0]).toMatch(/^id +date +medic/)
    expect(lines).toHaveLength(2)
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80)
    expect(screen).not.toMatch(/[┌│─┼]/)
    // 15:30Z is 23:30 in the user's zone (Asia/Manila)
    expect(screen).toContain('2026-03-01 23:3')

    const piped = await cli.run(['events', 'list', 'me', '--columns', 'id,date,symptoms'])
    const rows = piped.stdout.trimEnd().split('\n')
    expect(rows[0]).toBe('id\tdate\tsymptoms')
    expect(rows).toHaveLength(2)
    for (const row of rows.slice(1)) expect(row).toMatch(/^\w+\t2026-03-0\dT\d\d:\d\d:00\.000\+08:00\tcough;wheeze$/)
  })

  it('--all: the progress line is cleared before each page of rows, so no row continues it', async () => {
    const {id} = await cli.json(['users', 'create', '--type', 'patient', '--email', 'pages@example.com', '--given-name', 'P', '--family-name', 'G', '--password-stdin'], {input: 'pages-Pass-8v3n'})
    await sandbox.control('health/events', {count: 120, userId: id})
    const {code, screen} = await inTerminal(['events', 'list', 'me', '--all', '--columns', 'id,source'], 80)
    expect(code, screen).toBe(0)
    // What a line shows at the end: the text after its last carriage return and erase-line.
    const shown = screen.split('\n').map((line) => line.replace(/\r$/, '').split(/\r(?:\u001B\[2K)?/).at(-1)!).filter(Boolean)
    expect(shown[0]).toMatch(/^id +source$/)
    expect(shown.slice(1).filter((line) => !/^[\da-f]{24} +\w+$/.test(line))).toEqual([])
    expect(shown).toHaveLength(121)
  })
})
