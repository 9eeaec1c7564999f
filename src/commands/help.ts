import type {Interfaces} from '@oclif/core'

import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {writeError} from '../cli/error-output.js'
import {findHelpTopic, HELP_TOPICS, writeHelpTopic} from '../cli/help-topics.js'
import OpsctlHelp from '../cli/help.js'
import {hints} from '../cli/hints.js'
import {commandCandidates, notFoundError} from '../cli/not-found.js'
import {PlainCommand} from '../cli/plain-command.js'

/**
 * `opsctl help [COMMAND]`, as @oclif/plugin-help has it, but over the bundle's own copy of oclif:
 * the plugin is a package of its own that loads a second @oclif/core from node_modules.
 */
export default class Help extends PlainCommand {
  static override args = {
    command: Args.string({description: 'the command or topic to show help for', required: false}),
  }

  static override description = `Show help for opsctl, a topic or a command.

Help topics:
${HELP_TOPICS.map((t) => `- "help ${t.name}" ${t.summary}.`).join('\n')}`

  static override examples = [
    '<%= config.bin %> help',
    '<%= config.bin %> help checkout',
    '<%= config.bin %> help refund create',
    ...HELP_TOPICS.map((t) => `<%= config.bin %> help ${t.name}`),
  ]
  static override flags = {
    'nested-commands': Flags.boolean({char: 'n', description: 'include the commands of every nested topic'}),
  }

  static override strict = false

  async run(): Promise<void> {
    const parsed = await this.parseOrRefuse(() => this.parse(Help), Help)
    if (!parsed) return
    const {argv, flags} = parsed
    const words = argv as string[]
    const topic = words.length === 1 ? findHelpTopic(words[0]) : undefined
    if (topic) {
      writeHelpTopic(topic)
      return
    }

    const unknown = unknownWords(this.config, words)
    if (unknown) {
      const candidates = [...commandCandidates(this.config), ...HELP_TOPICS.map((t) => ({name: t.name, takesArgs: false}))]
      writeError(notFoundError(unknown, candidates, 'a command or help topic', hints.helpOn), false)
      process.exitCode = 2
      return
    }

    // opsctl's help class (package.json's oclif.helpClass), without oclif's module loader
    const options = (this.config.pjson.oclif as {helpOptions?: object}).helpOptions
    await new OpsctlHelp(this.config, {...options, all: flags['nested-commands']}).showHelp(words)
  }
}

/**
 * The leading words that name no command or topic (`evnts`, `checkout lst`), or none when they all
 * do. Words after a command are its arguments (`help events list me`), as oclif's help reads them.
 */
function unknownWords(config: Interfaces.Config, argv: readonly string[]): string[] | undefined {
  const end = argv.findIndex((w) => w.startsWith('-'))
  const words = end === -1 ? argv : argv.slice(0, end)
  for (let i = 0; i < words.length; i++) {
    const id = words.slice(0, i + 1).join(':')
    if (config.findCommand(id) || config.findTopic(id)) continue
    return i > 0 && config.findCommand(words.slice(0, i).join(':')) ? undefined : words.slice(0, i + 1)
  }

  return undefined
}
