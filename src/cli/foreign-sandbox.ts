/**
 * Whose sandbox is it? A sandbox profile on a loopback URL (the built-in one on port 4010 first)
 * reaches whatever listens on that port, which may be a sandbox another user of the machine, or
 * another config folder, started: its demo data and changes are theirs too. `sandbox start` leaves
 * its control token in the config folder it ran from (src/profiles/sandbox-tokens.ts), so a folder
 * without that token did not start it. Commands still work; a person at a terminal is told once.
 */
import {NetworkError} from '../errors.js'
import {SECRET_ENV} from '../http/services.js'
import {isLoopback} from '../http/url.js'
import {ENV, type ResolvedProfile} from '../profiles/resolve.js'
import {readSandboxToken} from '../profiles/sandbox-tokens.js'

/** The line to show for this profile's target, or undefined when the sandbox is this folder's or none of this applies. */
export async function foreignSandboxNote(resolved: ResolvedProfile, baseUrl: string, configDir: string): Promise<string | undefined> {
  if (resolved.profile.env !== 'sandbox' || process.env[SECRET_ENV.sandboxToken]) return undefined
  // A URL given in the environment was chosen on purpose (CI, a shared sandbox).
  if (resolved.fromEnv.includes(ENV.healthUrl) || resolved.fromEnv.includes(ENV.checkoutUrl)) return undefined
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return undefined
  }

  if (!isLoopback(url.hostname) || (await readSandboxToken(configDir, url.origin))) return undefined
  return `Note: the sandbox at ${url.origin} was not started from this config folder (another user's, or another folder's): what you see and change there is shared with whoever started it. Your own: opsctl sandbox start --port 0 (a free port; it says how to point opsctl at it)`
}

/** Shown only when the port answered (no network error, something was sent) and stderr is a terminal: a note for people, not for scripts. */
export function showsForeignSandboxNote(error: Error | undefined, dryRun: boolean): boolean {
  return Boolean(process.stderr.isTTY) && !dryRun && !(error instanceof NetworkError)
}
