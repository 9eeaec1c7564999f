/**
 * Reads of another user's health data: a reason where one is needed (production profiles: asked
 * in a terminal, `--reason` otherwise, before anything is sent) and a line in the access log
 * (../../audit/access.ts) once the user read is known. The signed-in user's own data needs neither.
 */
import {appendAccess} from '../../audit/access.js'
import {UsageError} from '../../errors.js'
import {UnwritableFileError} from '../../profiles/private-files.js'
import {ENV, type ResolvedProfile} from '../../profiles/resolve.js'
import {hints, shellQuote} from '../hints.js'
import {askText, isInteractive} from '../prompt.js'

export interface AccessContext {
  resolved: ResolvedProfile
  /** `--reason`, as typed */
  reason?: string
  dryRun: boolean
  configDir: string
  /** `users inspect`, `api health GET /api/users/{userId}` */
  command: string
  /** The words typed after the command (`-p live ... --night --start 7d`): the hint repeats them, so a copy reads the same way. */
  argv?: readonly string[]
}

/** The command line as typed, without its `--reason`: what the hint asks to run again with one. */
function typedLine(ctx: AccessContext, target: string): string {
  if (!ctx.argv) return `${ctx.command} ${target}`
  const words: string[] = []
  for (let i = 0; i < ctx.argv.length; i++) {
    const word = ctx.argv[i]
    if (word === '--reason') i++
    else if (!word.startsWith('--reason=')) words.push(shellQuote(word))
  }

  return [ctx.command, ...words].join(' ')
}

/** The signed-in user's id as known without asking the service: stored at sign-in (a session from the environment may be someone else's). */
export function storedUserId(r: ResolvedProfile): string | undefined {
  return r.fromEnv.includes(ENV.healthSession) ? undefined : r.profile.health.userId
}

/**
 * The reason for reading `target` (an id, an email or `me`), settled before anything is sent: on a
 * production profile a read of anyone but the signed-in user needs one (an email counts as someone
 * else until it is looked up). Without a terminal a missing reason is exit 2, nothing sent or read.
 */
export async function reasonFor(ctx: AccessContext, target: string, line = typedLine(ctx, target)): Promise<string | undefined> {
  const given = ctx.reason?.trim()
  if (given) return given
  if (ctx.reason !== undefined) throw new UsageError('--reason must not be empty; nothing was sent')
  if (ctx.dryRun || ctx.resolved.profile.env === 'sandbox' || target === 'me' || target === storedUserId(ctx.resolved)) return undefined
  if (!isInteractive()) {
    throw new UsageError(
      `Reading another user's health data with production profile ${ctx.resolved.name} needs a reason for the access log; nothing was sent`,
      [hints.readReason(line)],
    )
  }

  return (await askText('Why read the health data of this user? (kept in the access log)', '--reason')).trim()
}

/** One access line when `user` is not the signed-in user (never under --dry-run: nothing was read). */
export async function recordAccess(ctx: AccessContext, read: {reason?: string; signedInUser: string; user: string}): Promise<void> {
  if (ctx.dryRun || read.user === read.signedInUser) return
  const {name, profile} = ctx.resolved
  await appendAccess(ctx.configDir, {
    time: new Date().toISOString(),
    profile: name,
    env: profile.env,
    signedInUser: read.signedInUser,
    user: read.user,
    command: ctx.command,
    ...(read.reason ? {reason: read.reason} : {}),
  }).catch((error: unknown) => {
    // the line goes first: a read that cannot be recorded is not made (exit 2)
    throw error instanceof UnwritableFileError ? new UnwritableFileError(error.path, `${error.reason}; the user's data was not read`) : error
  })
}

/** The health reads of one user's data by path (getUserById, getEvents, getEventById, getMetrics), for `api health GET`. */
const USER_READ = /^\/api\/users\/([^/?#]+)(\/events(?:\/[^/?#]+)?|\/metrics)?\/?(?:[?#].*)?$/

/** The user whose data a raw GET of `path` reads, and the path's template (`/api/users/{userId}/events`), or undefined. */
export function healthReadOf(path: string): undefined | {template: string; userId: string} {
  const match = USER_READ.exec(path)
  if (!match) return undefined
  const rest = match[2] ?? ''
  const template = `/api/users/{userId}${rest.startsWith('/events/') ? '/events/{eventId}' : rest}`
  let userId = match[1]
  try {
    userId = decodeURIComponent(userId)
  } catch {
    // kept as typed: the service will say what it makes of it
  }

  return {template, userId}
}
