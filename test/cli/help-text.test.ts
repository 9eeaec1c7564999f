/**
 * Help that reads well in an 80-column terminal, for every command: descriptions are paragraphs
 * that oclif wraps (no hard wrap inside a sentence), examples fit 80 columns as written, and usage
 * lines are true (no empty alternatives, no flag the command does not have).
 */
import {type Command} from '@oclif/core'
import {beforeAll, describe, expect, it} from 'vitest'

import OpsctlHelp from '../../src/cli/help.js'
import {checkoutService} from '../../src/services/checkout/operations.js'
import {healthService} from '../../src/services/health/operations.js'
import {loadConfig} from '../helpers/command.js'

/** opsctl's help (oclif's, with the short usage of src/cli/help.ts) of one command, as text. */
class CommandText extends OpsctlHelp {
  of(command: Command.Loadable): string {
    return this.formatCommand(command)
  }
}

/** The whole of `opsctl <command> --help` (or `opsctl --help`) as printed, at one width. */
class PrintedHelp extends OpsctlHelp {
  lines: string[] = []

  async print(command?: Command.Loadable): Promise<void> {
    await (command ? this.showCommandHelp(command) : this.showRootHelp())
  }

  protected override log(...args: string[]): void {
    const before = this.lines.length
    super.log(...args)
    if (this.lines.length === before) this.lines.push(...args.join('\n').split('\n'))
  }
}

async function printed(width: number, command?: Command.Loadable): Promise<string[]> {
  const config = await loadConfig()
  const h = new PrintedHelp(config, {maxWidth: width, stripAnsi: true})
  // oclif's log goes to stdout: catch it here, with what OpsctlHelp made of it.
  const write = process.stdout.write
  process.stdout.write = ((chunk: string) => {
    h.lines.push(...String(chunk).replace(/\n$/, '').split('\n'))
    return true
  }) as typeof process.stdout.write
  try {
    await h.print(command)
  } finally {
    process.stdout.write = write
  }

  return h.lines
}

/** The words of help text: a line break inside an option list (after `|`) is not a break in a word. */
const words = (lines: string[]) => lines.join('\n').replaceAll(/\|\n\s*/g, '|').split(/\s+/).filter(Boolean)

let commands: Command.Loadable[]
let help: CommandText
let narrow: CommandText

beforeAll(async () => {
  const config = await loadConfig()
  commands = config.commands.filter((c) => !c.hidden && c.pluginType === 'core')
  // As wide as it takes: what is measured is the text as written, not oclif's wrapping of it.
  help = new CommandText(config, {maxWidth: 1000, stripAnsi: true})
  narrow = new CommandText(config, {maxWidth: 80, stripAnsi: true})
})

function section(text: string, header: string): string[] {
  const lines = text.split('\n')
  const start = lines.indexOf(header)
  if (start === -1) return []
  const end = lines.findIndex((line, i) => i > start && /^[A-Z][A-Z ]+$/.test(line))
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => line.trim() !== '')
}

describe('help of every command', () => {
  it('covers every command of the project', () => {
    expect(commands.length).toBeGreaterThanOrEqual(44)
  })

  it('writes each description as paragraphs: a line break only between paragraphs or before a list item', () => {
    const wrapped = commands.flatMap((c) =>
      [...(c.description ?? '').matchAll(/[^\n]*[^\n]\n(?!\n|- )[^\n]*/g)].map((m) => `${c.id}: ${JSON.stringify(m[0])}`),
    )
    expect(wrapped).toEqual([])
  })

  it('has examples that fit 80 columns as written', () => {
    const wide = commands.flatMap((c) =>
      section(help.of(c), 'EXAMPLES')
        .filter((line) => line.length > 80)
        .map((line) => `${c.id} (${line.length}): ${line.trim()}`),
    )
    expect(wide).toEqual([])
  })

  it('has usage lines without empty alternatives or unknown flags', () => {
    const problems = commands.flatMap((c) => {
      const usage = section(help.of(c), 'USAGE').join(' ')
      const flags = new Set(Object.entries(c.flags).flatMap(([name, f]) => [`--${name}`, ...(f.char ? [`-${f.char}`] : [])]))
      const unknown = [...usage.matchAll(/(?<=[\s[(|])--?[\w-]+/g)].map((m) => m[0]).filter((f) => !flags.has(f))
      const empty = /\|\s*[\])]|[[(]\s*\||\[\s*]/.test(usage) ? [`${c.id}: empty alternative in ${usage}`] : []
      return [...empty, ...unknown.map((f) => `${c.id}: ${f} is not a flag`)]
    })
    expect(problems).toEqual([])
  })

  it('says "required" once: oclif marks required flags itself', () => {
    const twice = commands.flatMap((c) =>
      Object.entries(c.flags)
        .filter(([, f]) => f.required && /required/i.test(f.description ?? ''))
        .map(([name]) => `${c.id} --${name}`),
    )
    expect(twice).toEqual([])
  })

  it('has a usage line that fits 80 columns: arguments, required flags, then [FLAGS]', () => {
    const long = commands.flatMap((c) => section(narrow.of(c), 'USAGE').filter((line) => line.length > 80).map((line) => `${c.id}: ${line}`))
    expect(long).toEqual([])
    expect(section(narrow.of(commands.find((c) => c.id.replaceAll(':', ' ') === 'refund create')!), 'USAGE')).toEqual([
      '  $ opsctl refund create CHECKOUTID --reason <value> [FLAGS]',
      '  $ opsctl refund create --from-file FILE [FLAGS]',
    ])
  })

  it("speaks in opsctl's words: no stock oclif flag text, no operation ids in a summary", () => {
    const ids = new Set([...healthService.list, ...checkoutService.list].map((op) => op.id))
    const problems = commands.flatMap((c) => {
      const text = help.of(c)
      const summary = (c.description ?? '').split('\n')[0]
      return [
        ...(text.includes('Format output as json.') ? [`${c.id}: oclif's --json text`] : []),
        ...[...summary.matchAll(/\((\w+)\)/g)].filter((m) => ids.has(m[1])).map((m) => `${c.id}: ${m[0]} in its summary`),
      ]
    })
    expect(problems).toEqual([])
  })
})

describe('help at 80 columns', () => {
  it('opsctl --help and every command\'s --help: no line over 80, no word broken (the same words as at 300 columns)', async () => {
    const problems: string[] = []
    for (const command of [undefined, ...commands]) {
      const [narrowLines, wideLines] = [await printed(80, command), await printed(300, command)]
      const name = `opsctl ${command?.id.replaceAll(':', ' ') ?? ''}`.trim()
      for (const line of narrowLines) if (line.length > 80) problems.push(`${name} (${line.length}): ${line}`)
      expect(words(narrowLines), name).toEqual(words(wideLines))
    }

    expect(problems).toEqual([])
  }, 60_000)
})
