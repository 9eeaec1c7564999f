/**
 * An interactive bash, zsh or fish in a pseudo-terminal (`script`), with `opsctl autocomplete
 * <shell> --script` loaded from its start-up file, typed at as a person would: Tab, Enter, Ctrl-U,
 * once its first prompt shows. What the terminal showed is returned as it was (escape sequences
 * kept: a test may look for them).
 */
import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {BIN} from '../e2e/harness.js'

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

/**
 * zsh and fish are not on every machine: a test skips without one, except in CI, which installs
 * both (.ci/run), so that there a missing shell fails the test instead of skipping it.
 */
export function skipShell(shell: Shell): boolean {
  return shell !== 'bash' && !process.env.CI && spawnSync(shell, ['--version']).status !== 0
}

/** A folder `bin` in `folder` holding an `opsctl` that runs the built CLI, as Tab calls it: PATH with it first. */
export function pathWithOpsctl(folder: string): string {
  const bin = join(folder, 'bin')
  mkdirSync(bin, {recursive: true})
  writeFileSync(join(bin, 'opsctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
  chmodSync(join(bin, 'opsctl'), 0o755)
  return `${bin}:${process.env.PATH}`
}

const PROMPT = 'tab-test$ '

/** The shell's command line, given a folder for its start-up file. */
function startCommand(shell: Shell, home: string): string {
  const rc = join(home, 'rc')
  if (shell === 'bash') {
    writeFileSync(rc, `PS1='${PROMPT}'\neval "$(opsctl autocomplete bash --script)"\n`)
    return `bash --noprofile --rcfile ${rc} -i`
  }

  if (shell === 'zsh') {
    // only these start-up files, not the machine's /etc/zsh/zshrc: the test is the same on every machine
    writeFileSync(join(home, '.zshenv'), 'unsetopt GLOBAL_RCS\n')
    writeFileSync(join(home, '.zshrc'), `PROMPT='${PROMPT}'\nautoload -U compinit; compinit -u\neval "$(opsctl autocomplete zsh --script)"\n`)
    return `env ZDOTDIR=${home} zsh -i`
  }

  // fish's own terminal title (an OSC 0 sequence) is turned off: a test looks for escape sequences a completion printed
  writeFileSync(rc, `function fish_title; end\nfunction fish_prompt; printf '%s' '${PROMPT}'; end\nopsctl autocomplete fish --script | source\n`)
  return `fish --no-config -i -C 'source ${rc}'`
}

/** What a terminal 200 columns wide shows while `keys` are typed into `shell`, started in `cwd`; `exit` is typed last. */
export function typeInto(shell: Shell, keys: string, options: {cwd: string; env: Record<string, string>}): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), `opsctl-${shell}-`))
  // Keys reach the terminal's line buffer as they are sent: before the shell's line editor reads
  // them (the first prompt) they would be cooked there, Ctrl-U erasing the line, Tabs included; for
  // the moments a command runs between two typed lines, `kill undef` turns that erasing off.
  // `timeout`: a shell left waiting for the rest of a quote ends (and the test fails) instead of hanging.
  const line = `stty cols 200 rows 40 kill undef; timeout --foreground 40 ${startCommand(shell, home)}`
  return new Promise((resolve, reject) => {
    // HOME: the shells' history and fish's folders go to the temporary folder, not the user's
    const env = {...options.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share')}
    const child = spawn('script', ['-qec', line, '/dev/null'], {cwd: options.cwd, env})
    let screen = ''
    child.stdout.on('data', (d) => {
      const ready = !screen.includes(PROMPT)
      screen += d
      if (ready && screen.includes(PROMPT)) child.stdin.end(`${keys}exit\n`)
    })
    child.on('error', reject)
    child.on('close', () => {
      rmSync(home, {force: true, recursive: true})
      resolve(screen)
    })
  })
}
