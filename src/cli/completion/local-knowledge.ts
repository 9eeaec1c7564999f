import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {LocalKnowledge} from './candidates.js'

import {createdCheckouts} from '../../audit/history.js'
import {readAudit} from '../../audit/read.js'
import {BUILTIN_PROFILE} from '../../profiles/schema.js'

/** How many checkout ids Tab offers: the newest created from this machine. */
const RECENT_CHECKOUTS = 50

/** What this machine knows, read from the config folder without writing to it (a first run has no files yet). */
export function localKnowledge(configDir: string): LocalKnowledge {
  return {
    checkoutIds: () =>
      readAudit(configDir).then(
        ({entries}) => createdCheckouts(entries).slice(0, RECENT_CHECKOUTS).map((c) => c.checkoutId),
        () => [],
      ),
    profiles: () => profileNames(configDir),
  }
}

function profileNames(configDir: string): string[] {
  try {
    const file = JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')) as {profiles?: unknown}
    if (file.profiles && typeof file.profiles === 'object') return Object.keys(file.profiles).sort()
  } catch {
    // no file yet (or an unreadable one, which the next real command reports)
  }

  return [BUILTIN_PROFILE]
}
