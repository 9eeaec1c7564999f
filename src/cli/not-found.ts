import type {Interfaces} from '@oclif/core'

import {UsageError} from '../errors.js'
import {type Candidate, nearestName} from '../suggest.js'
import {hints} from './hints.js'

/** The visible commands (and their aliases) and topics, in words ("checkout list"), as a mistyped name is compared with them. */
export function commandCandidates(config: Interfaces.Config): Candidate[] {
  return [
    ...config.commands
      .filter((c) => !c.hidden)
      .flatMap((c) => {
        const takesArgs = c.strict === false || Object.keys(c.args ?? {}).length > 0
        return [c.id, ...c.aliases].map((id) => ({name: id.replaceAll(':', ' '), takesArgs}))
      }),
    ...config.topics.filter((t) => !t.hidden).map((t) => ({name: t.name.replaceAll(':', ' '), takesArgs: false})),
  ]
}

/**
 * "`evnts` is not a command. Did you mean `events`?": the nearest candidate is named, never run.
 * `what` names what was looked for; `hint` words the next step for the guess.
 */
export function notFoundError(typedWords: string[], candidates: Candidate[], what = 'a command', hint = hints.help): UsageError {
  const guess = nearestName(typedWords, candidates)
  const message = `\`${typedWords.join(' ')}\` is not ${what}.${guess ? ` Did you mean \`${guess}\`?` : ''}`
  return new UsageError(message, [hint(guess)])
}
