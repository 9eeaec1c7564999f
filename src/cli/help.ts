/**
 * oclif's help, shorter where it was long: a command's USAGE names its arguments and required
 * flags, then `[FLAGS]` (the flags are listed below it), instead of every flag with every allowed
 * value, which ran to four lines at 80 columns and broke words across them.
 */
import {CommandHelp, Help} from '@oclif/core'

class CommandHelpWithShortUsage extends CommandHelp {
  protected override defaultUsage(): string {
    const args = Object.values(this.command.args ?? {})
      .filter((a) => !a.hidden)
      .map((a) => this.arg(a))
    const flags = Object.values(this.command.flags ?? {}).filter((f) => !f.hidden)
    const required = flags.filter((f) => f.required).map((f) => (f.type === 'option' ? `--${f.name} <value>` : `--${f.name}`))
    const optional = flags.some((f) => !f.required) ? ['[FLAGS]'] : []
    return [this.command.id, ...args, ...required, ...optional].join(' ')
  }
}

export default class OpsctlHelp extends Help {
  override CommandHelpClass = CommandHelpWithShortUsage
}
