/**
 * Shows help without oclif's Config: bin/run.js tries this for what ./direct-start.ts calls a help
 * request. oclif's `execute` would load Config first (package.json read again, the root plugin, the
 * 250 KB manifest and every command's and topic's entry built, the WSL check through an ES module),
 * then its help class. Here the same steps of oclif's `run` (the version and help flags, the id
 * `normalizeArgv` reads, the command or else the topic it names) run over a help config made from
 * dist/help/ (scripts/help-manifest.mjs writes it from a real Config at build), and oclif's own
 * Help, opsctl's class of it, prints; `help ...` runs the help command with that config.
 *
 * Anything else is oclif's, which is then the only judge: a command to run, a typo (the
 * command_not_found hook), a user's theme.json (oclif's theme), WSL, where oclif's user agent,
 * which the root help shows, names the platform `wsl`, and Windows, where oclif asks PowerShell
 * which shell runs it.
 */
import type {Command, Interfaces} from '@oclif/core'

import {flush} from '@oclif/core/flush'
import {handle} from '@oclif/core/handle'
import {getHelpFlagAdditions, normalizeArgv} from '@oclif/core/help'
import {existsSync, readFileSync} from 'node:fs'
import {release, userInfo} from 'node:os'
import {join, sep} from 'node:path'

import type * as DirectStart from './direct-start.js'
import type {LightConfig, PackageFacts} from './light-config.js'

import {findHelpTopic, writeHelpTopic} from '../cli/help-topics.js'
import OpsctlHelp from '../cli/help.js'

/** ./direct-start.ts, which bin/run.js has loaded: passed, not imported, so that the bundle keeps it and the light config in its one file. */
type Direct = Pick<typeof DirectStart, 'lightConfig' | 'readIndex' | 'runDirect'>

/** dist/help/index.json */
interface HelpIndex extends PackageFacts {
  /** Config's commands (aliases too), with what a list shows of each. */
  commands: Command.Cached[]
  pjson: Interfaces.PJSON
  topics: Interfaces.Topic[]
}

/** The part of oclif's Config its help reads (src/cli/help.ts, help's command), from dist/help/. */
export interface HelpConfig extends LightConfig {
  arch: string
  commandIDs: string[]
  readonly commands: Command.Cached[]
  findCommand(id: string): Command.Cached | undefined
  findTopic(name: string): Interfaces.Topic | undefined
  flexibleTaxonomy: false
  isSingleCommandCLI: false
  pjson: Interfaces.PJSON
  platform: string
  plugins: Map<string, never>
  readonly shell: string
  theme: undefined
  readonly topics: Interfaces.Topic[]
  topicSeparator: ' '
  windows: false
}

/**
 * Shows what oclif would show for argv, as oclif's `run` decides it, and resolves true; resolves
 * false, having printed nothing, when it is not help or not for this start (then oclif answers).
 */
export async function runHelp(argv: string[], root: string, direct: Direct): Promise<boolean> {
  const config = helpConfig(root, direct)
  if (!config) return false
  const {additionalVersionFlags = []} = config.pjson.oclif as {additionalVersionFlags?: string[]}
  if (['--version', ...additionalVersionFlags].includes(argv[0])) return false
  // `help <topic>` alone is a page of text: the help command would print just that, after oclif's
  // command start (its parser and flags), a third of the time
  const topic = argv.length === 2 && argv[0] === 'help' ? findHelpTopic(argv[1]) : undefined
  if (topic) {
    writeHelpTopic(topic)
    return true
  }

  let subject = argv
  if (!helpAddition(argv, config)) {
    const [id, ...rest] = normalizeArgv(config as never, argv)
    if (config.commandIDs.includes(id)) {
      const index = id === 'help' ? direct.readIndex(root) : undefined
      return index !== undefined && direct.runDirect({argv: rest, id, index}, root, config)
    }

    if (!config.findTopic(id)) return false
    subject = [id]
  }

  try {
    await new OpsctlHelp(config as never, config.pjson.oclif.helpOptions).showHelp(subject)
    await flush()
  } catch (error) {
    await handle(error as Error)
  }

  return true
}

/** oclif's `helpAddition`: no words, or a help flag before `--`. */
function helpAddition(argv: readonly string[], config: HelpConfig): boolean {
  if (argv.length === 0) return true
  const flags = getHelpFlagAdditions(config as never)
  for (const arg of argv) {
    if (flags.includes(arg)) return true
    if (arg === '--') return false
  }

  return false
}

/** The help config, or undefined when the build has no dist/help/ or oclif's Config would differ from it here. */
export function helpConfig(root: string, {lightConfig}: Pick<Direct, 'lightConfig'>, env: NodeJS.ProcessEnv = process.env): HelpConfig | undefined {
  let index: HelpIndex
  try {
    index = JSON.parse(readFileSync(join(root, 'dist', 'help', 'index.json'), 'utf8')) as HelpIndex
  } catch {
    return undefined
  }

  const light = lightConfig(root, index, env)
  // on Windows oclif asks PowerShell for the shell (a usage line's continuation): that start is oclif's
  if (process.platform === 'win32' || existsSync(join(light.configDir, 'theme.json')) || mayBeWsl()) return undefined
  const listed = new Map(index.commands.map((c) => [c.id, c]))
  const shown = new Map<string, Command.Cached>()
  const topics = new Map(index.topics.map((t) => [t.name, t]))
  return {
    ...light,
    arch: process.arch === 'ia32' ? 'x86' : process.arch,
    commandIDs: [...listed.keys()],
    get commands() {
      return [...listed.values()]
    },
    // the command whose help is shown, with all of it (its flags, arguments, examples)
    findCommand(id) {
      if (!listed.has(id)) return undefined
      if (!shown.has(id)) shown.set(id, JSON.parse(readFileSync(join(root, 'dist', 'help', 'commands', `${id.replaceAll(':', sep)}.json`), 'utf8')))
      return shown.get(id)
    },
    findTopic: (name) => topics.get(name),
    flexibleTaxonomy: false,
    isSingleCommandCLI: false,
    pjson: index.pjson,
    platform: process.platform,
    plugins: new Map<string, never>(),
    // help reads it on Windows only (a usage line's continuation), which is oclif's
    get shell() {
      return shellName(env)
    },
    theme: undefined,
    get topics() {
      return [...topics.values()]
    },
    topicSeparator: ' ',
    windows: false,
  }
}

/** oclif's `getShell` where it is not Windows. */
function shellName(env: NodeJS.ProcessEnv): string {
  const shell = env.SHELL ?? userInfo().shell?.split(sep)?.pop()
  return shell?.split('/').at(-1) ?? 'unknown'
}

/** is-wsl's signs of WSL (oclif's platform is then `wsl`), without its container checks: any sign leaves help to oclif. */
function mayBeWsl(): boolean {
  if (process.platform !== 'linux') return false
  if (release().toLowerCase().includes('microsoft')) return true
  try {
    if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return true
  } catch {}

  return existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') || existsSync('/run/WSL')
}
