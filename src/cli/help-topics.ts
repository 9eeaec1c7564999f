/** The help topics that are not commands: `opsctl help <topic>` prints one; the root help lists them. */
import {environmentHelp} from './environment.js'
import {exitCodesHelp} from './exit-codes.js'

export interface HelpTopic {
  summary: string
  /** The topic's text, wrapped within `width` columns. */
  render(width: number): string
}

export const HELP_TOPICS: ReadonlyMap<string, HelpTopic> = new Map([
  ['environment', {render: environmentHelp, summary: 'Every environment variable opsctl reads.'}],
  ['exit-codes', {render: exitCodesHelp, summary: 'What each exit code means (0-7, 130).'}],
])
