import * as Args from '@oclif/core/args'

import {type CompletableCommand, completions} from '../cli/completion/candidates.js'
import {localKnowledge} from '../cli/completion/local-knowledge.js'
import {PlainCommand} from '../cli/plain-command.js'
import {defaultConfigDir} from '../profiles/store.js'

/** What the completion functions of `opsctl autocomplete --script` call on Tab: one candidate a line. */
export default class Complete extends PlainCommand {
  static override args = {words: Args.string({description: 'the words typed after opsctl, the last being completed'})}
  static override description = 'Print the completions of a partial command line (called by the shell on Tab).'
  static override hidden = true
  static override strict = false

  async run(): Promise<void> {
    if (!(await this.parseOrRefuse(() => this.parse(Complete), Complete))) return
    // The words as the shell passed them, not as oclif's parser reads them: it drops a later `--`
    // as well as the first, and `checkout list --<Tab>` would then complete `checkout list`.
    const words = this.argv[0] === '--' ? this.argv.slice(1) : this.argv
    const commands = this.config.commands as unknown as CompletableCommand[]
    const found = await completions(commands, words, localKnowledge(defaultConfigDir(this.config.configDir)))
    // values are id-safe already (candidates.ts); no word with a control character reaches the terminal whatever its source
    const safe = found.filter((w) => !/\p{C}/u.test(w))
    if (safe.length > 0) process.stdout.write(`${safe.join('\n')}\n`)
  }
}
