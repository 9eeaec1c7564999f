/**
 * bin/run.js shows help without oclif's Config when it can (src/startup/help-start.ts), from what
 * the build wrote to dist/help/. The help config must read as oclif's Config does for everything
 * help reads, help printed from it must be what oclif's Config gives, word for word, and what is
 * not help (or not for this start) must be left to oclif, with nothing printed.
 */
import {Config} from '@oclif/core'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it, vi} from 'vitest'

import OpsctlHelp from '../../src/cli/help.js'
import * as direct from '../../src/startup/direct-start.js'
import {helpConfig, type HelpConfig, runHelp} from '../../src/startup/help-start.js'
import {ROOT} from '../helpers/command.js'

let config: Config
let help: HelpConfig

beforeAll(async () => {
  config = await Config.load({root: ROOT})
  help = helpConfig(ROOT, direct)!
})

afterEach(() => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
})

/** A command entry as the build can store it: without Config's `load` (toEqual takes a property set to undefined as absent, as JSON leaves it). */
const stored = (entry: object | undefined) => entry && Object.fromEntries(Object.entries(entry).filter(([key]) => key !== 'load'))

/** What opsctl's help prints for argv over one config, at one width. */
async function printed(over: object, argv: string[], width = 80): Promise<string> {
  const lines: string[] = []
  class Captured extends OpsctlHelp {
    protected override log(...args: string[]): void {
      const write = process.stdout.write
      process.stdout.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stdout.write
      try {
        super.log(...args)
      } finally {
        process.stdout.write = write
      }
    }
  }

  const options = (config.pjson.oclif as {helpOptions?: object}).helpOptions
  await new Captured(over as Config, {...options, maxWidth: width, stripAnsi: true}).showHelp(argv)
  return lines.join('')
}

describe('the help config', () => {
  it('reads as oclif Config for what help reads: the commands, aliases, topics and package facts', () => {
    expect(help.commandIDs).toEqual(config.commandIDs)
    for (const id of config.commandIDs) expect(help.findCommand(id), id).toEqual(stored(config.findCommand(id)))
    expect(help.findCommand('nosuch')).toBeUndefined()
    // a list shows each entry's summary, else its description's first line
    for (const [i, entry] of help.commands.entries()) {
      const whole = config.commands[i]
      expect(entry.id).toBe(whole.id)
      expect(entry.summary).toEqual(whole.summary)
      expect(whole.description?.startsWith(entry.description ?? '')).toBe(true)
      expect(JSON.stringify([entry.hidden, entry.aliases, entry.strict, entry.args])).toBe(JSON.stringify([whole.hidden, whole.aliases, whole.strict, whole.args]))
    }

    expect(help.topics.map((t) => t.name)).toEqual(config.topics.map((t) => t.name))
    for (const topic of help.topics) expect(config.findTopic(topic.name)?.description?.startsWith(topic.description ?? '')).toBe(true)
    const facts = (c: HelpConfig | Config) => [c.bin, c.userAgent, c.topicSeparator, c.flexibleTaxonomy, c.isSingleCommandCLI, c.theme, c.shell, c.platform, c.pjson.description]
    expect(facts(help)).toEqual(facts(config))
    const oclif = (c: HelpConfig | Config) => {
      const {additionalHelpFlags, additionalVersionFlags, helpClass, helpOptions, state} = c.pjson.oclif as Record<string, unknown>
      return {additionalHelpFlags, additionalVersionFlags, helpClass, helpOptions, state}
    }

    expect(oclif(help)).toEqual(oclif(config))
  })

  it('prints the help oclif Config gives: the root, every topic and every command, at 40 and 80 columns', async () => {
    const lines: string[][] = [[], ['--help'], ...config.topics.map((t) => t.name.split(':')), ...config.commandIDs.map((id) => [...id.split(':'), '--help'])]
    for (const argv of lines) {
      for (const width of [40, 80]) {
        // oclif's help rewrites a shown command's id in its entry (spaces for colons): each side is given its own
        const ours = await printed(helpConfig(ROOT, direct)!, argv, width)
        expect(ours, argv.join(' ')).toBe(await printed(await Config.load({root: ROOT}), argv, width))
      }
    }
  })

  it('is not made when a theme.json would change oclif colours: that help is oclif own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-help-start-'))
    try {
      vi.stubEnv('OPSCTL_CONFIG_DIR', dir)
      expect(helpConfig(ROOT, direct)).toBeDefined()
      mkdirSync(dir, {recursive: true})
      writeFileSync(join(dir, 'theme.json'), '{"command": "red"}')
      expect(helpConfig(ROOT, direct)).toBeUndefined()
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })
})

describe('the help start', () => {
  it('leaves to oclif, printing nothing, a command to run, a typo, a version flag and the colon spelling', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    const error = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    for (const argv of [['webhook', 'list'], ['checkout', 'nosuch'], ['evnts'], ['--version', '--help'], ['-v'], ['webhook:list'], ['profile', 'list', '--', '--help']]) {
      expect(await runHelp(argv, ROOT, direct), argv.join(' ')).toBe(false)
    }

    expect(write).not.toHaveBeenCalled()
    expect(error).not.toHaveBeenCalled()
  })

  it('prints `help <topic>` as the help command prints it, at the terminal width, and leaves `help <topic> ...more` to the command', async () => {
    const shown = async (run: () => Promise<unknown>, columns: number) => {
      const chunks: string[] = []
      const before = Object.getOwnPropertyDescriptor(process.stdout, 'columns')
      Object.defineProperty(process.stdout, 'columns', {configurable: true, value: columns})
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => chunks.push(String(chunk)) > 0)
      try {
        await run()
      } finally {
        write.mockRestore()
        if (before) Object.defineProperty(process.stdout, 'columns', before)
        else delete (process.stdout as {columns?: number}).columns
      }

      return chunks.join('')
    }

    for (const name of ['exit-codes', 'environment']) {
      for (const columns of [40, 80]) {
        const ours = await shown(() => runHelp(['help', name], ROOT, direct), columns)
        expect(ours, name).toMatch(/\S/)
        expect(ours, `${name} at ${columns}`).toBe(await shown(() => config.runCommand('help', [name]), columns))
      }
    }

    const runDirect = vi.fn(async () => true)
    await runHelp(['help', 'exit-codes', '--nested-commands'], ROOT, {...direct, runDirect})
    expect(runDirect).toHaveBeenCalledTimes(1)
  })

  it('asks for help for what oclif answers with help: no words, a help flag, a topic, `help ...`', () => {
    for (const argv of [[], ['--help'], ['checkout', 'list', '-h'], ['checkout'], ['sandbox', 'tenant'], ['help'], ['help', 'exit-codes']]) {
      expect(direct.helpRequest(argv, ROOT), argv.join(' ')).toBe(true)
    }

    for (const argv of [['checkout', 'list'], ['checkout', 'nosuch'], ['api', 'checkout', 'GET', '/x', '--', '--help'], ['checkout', '--json']]) {
      expect(direct.helpRequest(argv, ROOT), argv.join(' ')).toBe(false)
    }
  })
})
