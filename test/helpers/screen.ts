/**
 * A person's terminal for the journey tests: opsctl run in a pseudo-terminal (`script` from
 * util-linux) of a given width, stdout and stderr both on it as a person sees them. The screen
 * returned is what stays on it: a line that rewrote itself (a progress line) reads as its last
 * form, escape sequences removed.
 */
import {spawn} from 'node:child_process'
import {stripVTControlCharacters} from 'node:util'
import {expect} from 'vitest'

import {baseEnv, BIN, ROOT} from '../e2e/harness.js'

export interface Screen {
  code: number
  /** The lines left on the screen, without trailing blanks. */
  lines: string[]
  /** Every byte the terminal got, as it came (escape sequences kept). */
  raw: string
}

/** What a line shows once each `\r` (and erase-line) rewrote it: the last of its forms. */
function settled(line: string): string {
  return stripVTControlCharacters(line.split('\r').at(-1)!).trimEnd()
}

export function onScreen(argv: string[], env: Record<string, string | undefined>, cols = 80): Promise<Screen> {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`
  const line = `stty cols ${cols} rows 60; exec ${[process.execPath, BIN, ...argv].map(quote).join(' ')}`
  // CI unset: a person at a terminal, not a job
  const all: Record<string, string | undefined> = {...baseEnv(), ...env, CI: undefined}
  for (const [k, v] of Object.entries(all)) if (v === undefined) delete all[k]
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', line, '/dev/null'], {cwd: ROOT, env: all as NodeJS.ProcessEnv})
    let raw = ''
    child.stdout.on('data', (d) => (raw += d))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const lines = raw
        .replaceAll('\r\n', '\n')
        .split('\n')
        .map((l) => settled(l))
      while (lines.length > 0 && lines.at(-1) === '') lines.pop()
      resolve({code: code ?? (signal ? 128 : 1), lines, raw})
    })
    child.stdin.end()
  })
}

/** No line wider than the terminal (characters: the journeys' screens are ASCII and `…`). */
export function fits(lines: readonly string[], cols = 80): void {
  for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(cols)
}
