/**
 * The access log: one JSON line per command that read the health data of a user other than the
 * signed-in one (`users get`, `users inspect`, `events list/get`, `metrics get`, `plan show` and
 * `api health GET` on those paths), in `<config dir>/access.jsonl`, mode 0600. It says who read
 * whose data, when, with which command and why; never the data read. Like a clinical system's
 * record of access to a patient's chart (FHIR AuditEvent).
 */
import {join} from 'node:path'

import {scrubSecrets} from '../http/redact.js'
import {appendPrivateLine} from './log.js'

export interface AccessEntry {
  /** When the read was made, this machine's clock (ISO 8601, UTC). */
  time: string
  profile: string
  env: string
  /** The id of the user whose session made the read. */
  signedInUser: string
  /** The id of the user whose data was read. */
  user: string
  /** The command line's words up to its arguments: `users inspect`, `api health GET /api/users/{userId}/events`. */
  command: string
  /** Why (`--reason`, or the answer to the prompt); absent when none was given (a sandbox profile). */
  reason?: string
}

export const ACCESS_FILE = 'access.jsonl'

export function accessPath(configDir: string): string {
  return join(configDir, ACCESS_FILE)
}

/** Appends one line, scrubbed of every known secret (a reason is typed by a person: a pasted key must not stay). */
export async function appendAccess(configDir: string, entry: AccessEntry): Promise<void> {
  await appendPrivateLine(configDir, ACCESS_FILE, scrubSecrets(JSON.stringify(entry)))
}
