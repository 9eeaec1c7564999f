import {Args, Command, Flags, loadHelpClass} from '@oclif/core'

import {environmentHelp} from '../cli/environment.js'

/**
 * `opsctl help [COMMAND]`, as @oclif/plugin-help has it, but over the bundle's own copy of oclif:
 * the plugin is a package of its own that loads a second @oclif/core from node_modules.
 */
export default class Help extends Command {
  static override args = {
    command: Args.string({description: 'the command or topic to show help for', required: false}),
  }

  static override description = `Show help for opsctl, a topic or a command.

"help environment" lists every environment variable opsctl reads.`

  static override examples = [
    '<%= config.bin %> help',
    '<%= config.bin %> help checkout',
    '<%= config.bin %> help refund create',
    '<%= config.bin %> help environment',
  ]
  static override flags = {
    'nested-commands': Flags.boolean({char: 'n', description: 'include the commands of every nested topic'}),
  }

  static override strict = false

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Help)
    if (argv.length === 1 && argv[0] === 'environment') {
      process.stdout.write(environmentHelp(process.stdout.columns || 80))
      return
    }

    const HelpClass = await loadHelpClass(this.config)
    const options = (this.config.pjson.oclif as {helpOptions?: object}).helpOptions
    await new HelpClass(this.config, {...options, all: flags['nested-commands']}).showHelp(argv as string[])
  }
}
