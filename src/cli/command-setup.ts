/**
 * What BaseCommand does before a command runs, beside parsing: stdout closed early, stdin never
 * taken for an argument, whether --profile was typed, and the sandbox-only requirement; and after
 * it, the profiles it changed saved.
 */
import type {ResolvedProfile} from '../profiles/resolve.js'
import type {ProfileStore} from '../profiles/store.js'

import {ExitCode, UsageError} from '../errors.js'

/** A command (or, with `flag`, one of its flags) that works only against a sandbox profile. */
export interface SandboxRequirement {
  /** Only when this flag is set (e.g. `register`). */
  flag?: string
  /** Why, said first: "checkout pay acts as a buyer on the sandbox's payment page". */
  why: string
  suggestions?: string[]
}

let epipeWatched = false
/**
 * `opsctl ... | head` closes stdout early: end quietly instead of crashing on EPIPE. Once per
 * process: commands run in-process one after another (tests, runners) must not add a listener each.
 */
export function watchStdoutEpipe(): void {
  if (epipeWatched) return
  epipeWatched = true
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  })
}

/**
 * oclif hands piped stdin to the first missing argument: `echo chk_1 | opsctl checkout void` would
 * void chk_1 without saying so, and the stdin a command reads itself (--password-stdin) would be
 * gone. An argument comes only from the command line.
 */
export function withoutStdin<A extends Record<string, object> | undefined>(args: A): A {
  if (!args) return args
  return Object.fromEntries(Object.entries(args).map(([name, arg]) => [name, {...arg, ignoreStdin: true}])) as A
}

/** `--profile` (or `-p`) was typed, not filled from OPSCTL_PROFILE by oclif. */
export function profileTyped(argv: readonly string[]): boolean {
  return argv.some((a) => a.startsWith('-p') || a === '--profile' || a.startsWith('--profile='))
}

/** A command (or one of its flags) that works only against a sandbox is refused on another profile: exit 2, nothing sent. */
export async function checkSandboxRequirement(requirement: SandboxRequirement | undefined, flags: Record<string, unknown>, profile: () => Promise<ResolvedProfile>): Promise<void> {
  if (!requirement || (requirement.flag && !flags[requirement.flag])) return
  const {name, profile: resolved} = await profile()
  if (resolved.env === 'sandbox') return
  throw new UsageError(`${requirement.why}; profile ${name} is ${resolved.env}, and this works only against a sandbox; nothing was sent`, requirement.suggestions)
}

/** The profiles file, written when a command changed it and did not save it itself; a failure is exit 1. */
export async function saveUnsavedProfiles(opened: Promise<ProfileStore> | undefined): Promise<void> {
  const store = await opened?.catch(() => undefined)
  if (!store?.unsaved) return
  try {
    await store.save()
  } catch (error) {
    process.exitCode = ExitCode.Unexpected
    process.stderr.write(`Error: could not save ${store.path}: ${(error as Error).message.split('\n')[0]}\n`)
  }
}
