import {UsageError} from '../errors.js'
import {nearestFlag} from '../suggest.js'
import {hints} from './hints.js'

interface FlagOwner {
  id?: string
  baseFlags?: Record<string, {aliases?: string[]}>
  flags?: Record<string, {aliases?: string[]}>
  enableJsonFlag?: boolean
}

/**
 * oclif's NonExistentFlagsError (not exported by @oclif/core: recognised by its `flags` list) as
 * one line naming the nearest flag the command has: "Unknown flag --limt. Did you mean --limit?".
 */
export function unknownFlagError(error: unknown, command: FlagOwner): UsageError | undefined {
  const typed = (error as {flags?: unknown}).flags
  if (!Array.isArray(typed) || typed.length === 0 || !(error as Error).message.startsWith('Nonexistent flag')) return undefined
  const flags = {...command.baseFlags, ...command.flags}
  const names = [...Object.entries(flags).flatMap(([name, flag]) => [name, ...(flag.aliases ?? [])]), ...(command.enableJsonFlag ? ['json'] : [])]
  const parts = (typed as string[]).map((flag) => {
    const guess = nearestFlag(flag, names)
    return `${flag.split('=')[0]}${guess ? `. Did you mean ${guess}?` : ''}`
  })
  const message = `Unknown flag${parts.length > 1 ? 's' : ''} ${parts.join('; ')}`
  return new UsageError(message.endsWith('?') ? message : message + '.', [hints.help(command.id)])
}
