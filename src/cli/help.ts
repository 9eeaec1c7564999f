/**
 * oclif's help, shorter where it was long and wrapped where a reader expects it: a command's USAGE
 * names its arguments and required flags, then `[FLAGS]` (the flags are listed below it), instead
 * of every flag with every allowed value; and text is broken between words and after the `|` of an
 * option list (./help-wrap.ts), never inside a word as oclif's own wrapping does.
 */
import {CommandHelp, Help} from '@oclif/core/help'

import {HELP_TOPICS} from './help-topics.js'
import {wrapHelp} from './help-wrap.js'

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

  override wrap(body: string, spacing = this.indentSpacing): string {
    return wrapHelp(this.render(body), this.opts.maxWidth - spacing, true)
  }
}

export default class OpsctlHelp extends Help {
  override CommandHelpClass = CommandHelpWithShortUsage

  /** Every line within the width, whatever part of oclif's help made it (the root description too). */
  protected override log(...args: string[]): void {
    super.log(...args.map((text) => wrapHelp(text, this.opts.maxWidth)))
  }

  override wrap(body: string, spacing = this.indentSpacing): string {
    return wrapHelp(this.render(body), this.opts.maxWidth - spacing, true)
  }

  /** After the topics and commands, the topics that are not commands (`help exit-codes`). */
  protected override async showRootHelp(): Promise<void> {
    await super.showRootHelp()
    const rows = HELP_TOPICS.map((topic): [string, string] => [`help ${topic.name}`, topic.summary])
    this.log(this.section('HELP TOPICS', this.renderList(rows, {indentation: 2, spacer: '\n', stripAnsi: this.opts.stripAnsi})))
    this.log('')
  }
}
