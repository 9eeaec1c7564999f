/**
 * Tab at a real terminal: bash, zsh and fish in a pseudo-terminal (test/helpers/shell-terminal.ts),
 * typed at as a person would. `checkout list --<Tab><Tab>` lists the command's flags, where a
 * trailing `--` used to leave the shell offering file names; so does `-<Tab>`, which puts `--`
 * (what every flag starts with) and then used to stall in zsh. `help <Tab><Tab>` lists topics,
 * commands and help topics, not the files of the folder.
 */
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, ROOT, runCli} from '../e2e/harness.js'
import {pathWithOpsctl, SHELLS, skipShell, typeInto} from '../helpers/shell-terminal.js'

let folder: string
let cwd: string
let env: Record<string, string>

interface ManifestCommand {
  hidden?: boolean
  flags: Record<string, {hidden?: boolean}>
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'opsctl-tab-'))
  // a file that file-name completion would list
  cwd = join(folder, 'work')
  mkdirSync(cwd)
  writeFileSync(join(cwd, 'notes-file.txt'), '')
  env = {...baseEnv(), OPSCTL_CONFIG_DIR: join(folder, 'config'), PATH: pathWithOpsctl(folder)}
})

afterAll(() => {
  if (folder) rmSync(folder, {force: true, recursive: true})
})

describe.each(SHELLS)('Tab in a real %s', (shell) => {
  if (skipShell(shell)) {
    // eslint-disable-next-line mocha/no-skipped-tests -- the reason is the point: it shows in the report
    it.skip(`skipped: ${shell} is not installed (apt-get install ${shell})`, () => {})
    return
  }

  // bash lists on the Tab after one that inserted nothing: after `-` (which became `--`), the third
  it.each(['--\t\t', '-\t\t\t'])("lists the command's flags on %j", async (tabs) => {
    const flags = Object.entries(manifest.commands['checkout:list'].flags)
      .filter(([, f]) => !f.hidden)
      .map(([name]) => `--${name}`)
    expect(flags).toContain('--sandbox-seeded')
    // Ctrl-U clears the line, so that Enter runs nothing
    const screen = await typeInto(shell, `opsctl checkout list ${tabs}\u0015\n`, {cwd, env})
    for (const flag of flags) expect(screen).toContain(flag)
    expect(screen).not.toContain('notes-file.txt')
  })

  it('lists topics, commands and help topics after help', async () => {
    const words = new Set(Object.entries(manifest.commands).flatMap(([id, c]) => (c.hidden ? [] : [id.split(':')[0]])))
    const screen = await typeInto(shell, 'opsctl help \t\t\u0015\n', {cwd, env})
    for (const word of [...words, 'environment']) expect(screen).toContain(word)
    expect(screen).not.toContain('notes-file.txt')
  })
})

describe('autocomplete', () => {
  it("prints the setup line of the user's shell, fish's included", async () => {
    const [fish, zsh] = await Promise.all([runCli(['autocomplete'], {env: {SHELL: '/usr/bin/fish'}}), runCli(['autocomplete'], {env: {SHELL: '/bin/zsh'}})])
    expect(fish.code, fish.stderr).toBe(0)
    expect(fish.stdout).toContain('Add this line to ~/.config/fish/config.fish')
    expect(fish.stdout).toContain('  opsctl autocomplete fish --script | source\n')
    expect(zsh.stdout).toContain('  eval "$(opsctl autocomplete zsh --script)"\n')
  })
})
