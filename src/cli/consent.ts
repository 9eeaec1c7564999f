/**
 * Consent to a change, derived from the operations table in one place: every change a command
 * makes is asked of `consentOf` (the `Consent` step of src/services/change.ts), which announces a production target before the first change to a
 * service, and asks before a destructive row (--yes, a prompt in a terminal, the resource id typed
 * back on production). Without a terminal and without --yes nothing is sent (exit 2).
 */
import type {Operation} from '../http/operation.js'
import type {ChangeWords, Consent} from '../services/change.js'

import {escapeControlChars} from '../control-chars.js'
import {DeclinedError, UsageError} from '../errors.js'
import {pathParams} from '../http/operation.js'
import {type ResolvedProfile, targetOf} from '../profiles/resolve.js'
import {askConfirm, askTypeBack, isInteractive} from './prompt.js'

export interface ConsentContext {
  yes: boolean
  dryRun: boolean
  /** The command only undoes changes of its own (see BaseCommand.undoesOwnChanges): nothing to ask. */
  ownChanges?: boolean
  profile(): Promise<ResolvedProfile>
}

/** What a destructive call does, as the prompt says it, and the id typed back on production. */
export interface ChangeDescription {
  action: string
  resourceId: string
}

/**
 * "Delete webhook w-1" from the row `deleteWebhook` and its params; the id is the last path
 * parameter (or the row's object: "customization" for `removeCustomization`).
 */
export function describeChange(op: Operation, params: Record<string, string | undefined> = {}): ChangeDescription {
  const words = op.id.replaceAll(/([A-Z])/g, ' $1').toLowerCase().split(' ')
  const names = pathParams(op.path)
  const resourceId = (names.length > 0 ? params[names.at(-1)!] : undefined) ?? words.at(-1)!
  const sentence = words.join(' ')
  const action = sentence[0].toUpperCase() + sentence.slice(1)
  return {action: names.length > 0 ? `${action} ${resourceId}` : action, resourceId}
}

/** A destructive change without --yes and without a terminal (exit 2, nothing sent; audited as refused locally). */
export class ConsentRequiredError extends UsageError {}

/** Without --yes and without a terminal, consent cannot be given: say so before the first request. */
export function requireConsentPossible(ctx: Pick<ConsentContext, 'dryRun' | 'yes'>, action: string): void {
  if (ctx.dryRun || ctx.yes || isInteractive()) return
  throw new ConsentRequiredError(`${action} is destructive and needs confirmation; pass --yes to confirm without a terminal`)
}

/** The consent step of every change a command makes (src/services/change.ts). */
export function consentOf(ctx: ConsentContext): Consent {
  const announced = new Set<string>()
  return {
    async ask(op: Operation, params: Record<string, string | undefined>, words?: ChangeWords) {
      // A dry run sends nothing, so it needs no consent; a read changes nothing.
      if (ctx.dryRun || op.method === 'GET') return
      const r = await ctx.profile()
      if (r.profile.env === 'production' && !announced.has(op.service)) {
        announced.add(op.service)
        process.stderr.write(`Profile ${escapeControlChars(r.name)} (production) -> ${escapeControlChars(targetOf(r, op.service).baseUrl)}\n`)
      }

      if (!op.destructive || ctx.ownChanges || ctx.yes) return
      const {action, detail, resourceId} = {...describeChange(op, params), ...words}
      requireConsentPossible(ctx, action)
      const then = detail ? ` ${detail}` : ''
      // Ctrl-C at the prompt is a CancelledError (exit 130), audited as declined too.
      const ok =
        r.profile.env === 'production'
          ? await askTypeBack(`${action} on PRODUCTION (${r.name}).${then} Type ${resourceId} to confirm:`, resourceId)
          : await askConfirm(`${action}?${then}`)
      if (!ok) throw new DeclinedError('Not confirmed; nothing was sent')
    },
  }
}
