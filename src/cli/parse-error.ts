import {UsageError} from '../errors.js'
import {hints} from './hints.js'

interface ArgSpec {
  description?: string
  name?: string
  required?: boolean
}

/** What a usage line needs of a command: its id and its arguments, in order. */
export interface ArgOwner {
  args?: Record<string, ArgSpec>
  id?: string
}

/**
 * oclif's parse errors as one short line, the missing thing named first. A missing argument
 * ("Missing 1 required arg: checkoutId  checkout id Note: --columns allows multiple values ...")
 * becomes "Missing the checkout id: opsctl checkout get CHECKOUTID"; a missing flag is named as
 * typed ("--reason"); the rest are oclif's lines joined.
 */
export function parseUsageError(error: unknown, command: ArgOwner): UsageError {
  const help = hints.help(command.id)
  const missingArgs = (error as {args?: unknown}).args
  const message = (error as Error).message ?? String(error)
  if (Array.isArray(missingArgs) && message.startsWith('Missing ')) {
    const named = (missingArgs as ArgSpec[]).map((a) => shortDescription(a))
    return new UsageError(`Missing the ${named.join(' and the ')}: ${usageLine(command)}`, [help])
  }

  const line = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/See more help with --help$/, '')
    .replace(/^The following errors? occurred:\s*/, '')
    .replace(/^Parsing (--[\w-]+) /, '$1: ')
    .replaceAll(/Missing required flag ([\w-]+)/g, 'Missing required flag --$1')
    .trim()
  return new UsageError(line, [help])
}

/** "checkout id" from "checkout id", "user id" from 'user id, or "me" for the signed-in user'. */
function shortDescription(arg: ArgSpec): string {
  const first = arg.description?.split(/[,;(]/)[0].trim()
  return first || arg.name || 'argument'
}

/** `opsctl checkout get CHECKOUTID [AMOUNT]`: required arguments bare, optional ones in brackets. */
export function usageLine(command: ArgOwner): string {
  const words = Object.entries(command.args ?? {}).map(([name, arg]) => (arg.required ? name.toUpperCase() : `[${name.toUpperCase()}]`))
  return ['opsctl', command.id?.replaceAll(':', ' '), ...words].filter(Boolean).join(' ')
}
