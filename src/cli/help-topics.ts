/**
 * The topics of `opsctl help` that are not commands (`help environment`): one table, read by the
 * help command (to print a topic and to list them in its description), by Tab after `help` and by
 * the did-you-mean of `help <typo>`. A topic added here shows up in all three.
 */
import {environmentHelp} from './environment.js'
import {exitCodesHelp} from './exit-codes.js'

export interface HelpTopic {
  name: string
  /** what `help <name>` shows, completing "help <name> ..." in the help command's description */
  summary: string
  /** the page, wrapped within `width` columns */
  text(width: number): string
}

export const HELP_TOPICS: readonly HelpTopic[] = [
  {name: 'environment', summary: 'lists every environment variable opsctl reads', text: environmentHelp},
  {name: 'exit-codes', summary: 'says what each exit code means (0-7, 130)', text: exitCodesHelp},
]

export function findHelpTopic(name: string): HelpTopic | undefined {
  return HELP_TOPICS.find((t) => t.name === name)
}

/** Prints a topic's page for this terminal: `opsctl help <topic>`, from the help command or the help start. */
export function writeHelpTopic(topic: HelpTopic): void {
  process.stdout.write(topic.text(process.stdout.columns || 80))
}
