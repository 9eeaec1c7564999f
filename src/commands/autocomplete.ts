import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {COMPLETION_SHELLS, completionScript, type CompletionShell, setupSteps} from '../cli/completion/scripts.js'
import {PlainCommand} from '../cli/plain-command.js'

export default class Autocomplete extends PlainCommand {
  static override args = {
    shell: Args.string({description: 'the shell (default: from $SHELL)', options: COMPLETION_SHELLS}),
  }

  static override description = `Set up Tab completion for bash, zsh or fish.

Completes topics, commands, flags (after arguments too), flag values, profile names, "me", the checkout ids in this machine's audit log and the event ids the signed-in user's listings showed. Tab runs "opsctl complete", which reads only local files: it never waits on a network.`

  static override examples = [
    '<%= config.bin %> autocomplete',
    '<%= config.bin %> autocomplete zsh',
    '<%= config.bin %> autocomplete fish',
    'eval "$(<%= config.bin %> autocomplete bash --script)"',
  ]

  static override flags = {
    script: Flags.boolean({description: 'print the completion function itself (what the setup line evaluates)'}),
  }

  async run(): Promise<void> {
    const parsed = await this.parseOrRefuse(() => this.parse(Autocomplete), Autocomplete)
    if (!parsed) return
    const {args, flags} = parsed
    const shell = (args.shell ?? COMPLETION_SHELLS.find((s) => process.env.SHELL?.endsWith(s)) ?? 'bash') as CompletionShell
    const text = flags.script ? completionScript(shell, this.config.bin) : setupSteps(shell, this.config.bin)
    process.stdout.write(text)
  }
}
