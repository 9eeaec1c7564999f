import type {Command} from '@oclif/core'

/**
 * Starts a command without oclif's Config: bin/run.js tries this first. oclif's `execute` loads its
 * whole index, reads the 250 KB manifest, loads the root plugin and builds every command's and
 * topic's entry before it runs one command (about 10 ms of CPU on every start). Here the command is
 * found in dist/command-index.json (written by the build from the manifest), its file is required
 * and it runs with a light config (./light-config.ts) through the same `_run` oclif would call.
 *
 * Help (no words, a topic, `--help`/`-h`, `help ...`) goes to ./help-start.ts first. Anything else
 * goes to oclif, which is then the only judge: the did-you-mean of the command_not_found hook, an
 * alias or `topic:command` spelling, and the commands that read oclif's whole Config (completion,
 * scenario run).
 */
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'

import {lightConfig, type PackageFacts} from './light-config.js'

// for ./help-start.ts, which bin/run.js hands this module: the light config stays in this one file
export {lightConfig} from './light-config.js'

/** dist/command-index.json */
export interface CommandIndex extends PackageFacts {
  /** Aliases: typed, oclif resolves them. */
  aliases: string[]
  /** Command id (`webhook:list`) to its file, relative to the package root. */
  commands: Record<string, string>
  /** Commands with positional arguments (or no strict argument count): a word after them is an argument. */
  takesArgs: string[]
}

/** Commands that read more of oclif's Config than ./light-config.ts has: every command, the help class, the plugins. */
export const NEEDS_FULL_CONFIG: ReadonlySet<string> = new Set(['autocomplete', 'complete', 'help', 'scenario:run'])

const HELP_FLAGS = new Set(['--help', '-h'])

/** A command class as its module exports it; `_run` is what oclif's `Command.run` calls once it has a Config. */
type CommandClass = Pick<typeof Command, 'id'> & (new (argv: string[], config: never) => {_run(): Promise<unknown>})

/** A command that can start directly: its id, the argv it parses, and the index it was found in. */
export interface DirectStart {
  argv: readonly string[]
  id: string
  index: CommandIndex
}

/** The command argv names, when it can start directly: found without loading anything of it. */
export function findDirect(argv: readonly string[], root: string): DirectStart | undefined {
  const index = readIndex(root)
  const found = index && directCommand(index, argv)
  return index && found ? {...found, index} : undefined
}

/**
 * Whether argv asks for help (no words, `help ...`, `--help`/`-h` before a `--`, or the words of a
 * topic alone): bin/run.js then tries ./help-start.ts, whose files load from one pack.
 */
export function helpRequest(argv: readonly string[], root: string): boolean {
  if (argv.length === 0 || argv[0] === 'help') return true
  for (const arg of argv) {
    if (arg === '--') return false
    if (HELP_FLAGS.has(arg)) return true
  }

  const index = readIndex(root)
  const id = argv.join(':')
  return index !== undefined && !argv.some((arg) => arg.startsWith('-')) && usableIds(index).has(id) && !Object.hasOwn(index.commands, id)
}

/**
 * Runs a command findDirect found and resolves true; resolves false, having done nothing, when its
 * module has no command. `config`: the light config, or the help config of ./help-start.ts.
 */
export async function runDirect({argv, id, index}: DirectStart, root: string, config: object = lightConfig(root, index)): Promise<boolean> {
  const exports = createRequire(join(root, 'package.json'))(join(root, index.commands[id])) as {default?: CommandClass}
  const CommandClass = exports.default
  if (!CommandClass) return false
  // As oclif's plugin sets it when it loads a command: the constructor reads it.
  CommandClass.id = id
  const command = new CommandClass([...argv], config as never)
  try {
    await command._run()
  } catch (error) {
    // BaseCommand.catch answers every error of a run; what escapes it is printed as oclif's execute would.
    const {handle} = await import('@oclif/core/handle')
    await handle(error as Error)
  }

  return true
}

/**
 * The command argv names and the argv it parses, found as oclif's `normalizeArgv` finds it for a
 * space-separated CLI: leading words join the id while, joined with `:`, they are an id or the start
 * of one; a flag, a `k=v` word or a word after a command that takes arguments ends it. Any other word
 * would join the id too, making it name nothing: oclif's not-found answer, so undefined, as for
 * anything else oclif must decide.
 */
export function directCommand(index: CommandIndex, argv: readonly string[]): undefined | {argv: readonly string[]; id: string} {
  const first = argv[0]
  if (first === undefined || first.startsWith('-') || first.includes(':')) return undefined
  for (const arg of argv) {
    if (arg === '--') break
    if (HELP_FLAGS.has(arg)) return undefined
  }

  const usable = usableIds(index)
  const words: string[] = []
  for (const arg of argv) {
    if (usable.has([...words, arg].join(':'))) {
      words.push(arg)
      continue
    }

    if (arg.startsWith('-') || arg.includes('=') || index.takesArgs.includes(words.join(':'))) break
    return undefined
  }

  const id = words.join(':')
  if (!Object.hasOwn(index.commands, id) || NEEDS_FULL_CONFIG.has(id)) return undefined
  return {argv: argv.slice(words.length), id}
}

/** Every id and alias, and every run of leading words of one (`sandbox`, `sandbox:tenant`). */
function usableIds(index: CommandIndex): Set<string> {
  const usable = new Set<string>()
  for (const id of [...Object.keys(index.commands), ...index.aliases]) {
    const parts = id.split(':')
    for (let i = 1; i <= parts.length; i++) usable.add(parts.slice(0, i).join(':'))
  }

  return usable
}

/** dist/command-index.json, or undefined when the build has none. */
export function readIndex(root: string): CommandIndex | undefined {
  try {
    return JSON.parse(readFileSync(join(root, 'dist', 'command-index.json'), 'utf8')) as CommandIndex
  } catch {
    return undefined
  }
}
