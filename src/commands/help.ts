import {Args, Command, Flags, loadHelpClass} from '@oclif/core'

import {HELP_TOPICS} from '../cli/help-topics.js'

/**
 * `opsctl help [COMMAND]`, as @oclif/plugin-help has it, but over the bundle's own copy of oclif:
 * the plugin is a package of its own that loads a second @oclif/core from node_modules.
 */
export default class Help extends Command {
  static override args = {
    command: Args.string({description: 'the command or topic to show help for', required: false}),
  }

  static override description = `Show help for opsctl, a topic or a command.

"help environment" lists every environment variable opsctl reads; "help exit-codes" what each exit code means.`

  static override examples = [
    '<%= config.bin %> help',
    '<%= config.bin %> help checkout',
    '<%= config.bin %> help refund create',
    '<%= config.bin %> help environment',
    '<%= config.bin %> help exit-codes',
  ]
  static override flags = {
    'nested-commands': Flags.boolean({char: 'n', description: 'include the commands of every nested topic'}),
  }

  static override strict = false

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Help)
    const topic = argv.length === 1 ? HELP_TOPICS.get(argv[0] as string) : undefined
    if (topic) {
      process.stdout.write(topic.render(process.stdout.columns || 80))
      return
    }

    const HelpClass = await loadHelpClass(this.config)
    const options = (this.config.pjson.oclif as {helpOptions?: object}).helpOptions
    await new HelpClass(this.config, {...options, all: flags['nested-commands']}).showHelp(argv as string[])
  }
}
