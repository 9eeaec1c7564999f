import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {LocalKnowledge} from './candidates.js'

import {createdCheckouts} from '../../audit/history.js'
import {readAudit} from '../../audit/read.js'
import {recentEventIds} from '../../profiles/recent-events.js'
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
    eventIds: () => recentEventIds(configDir, process.env.OPSCTL_PROFILE || activeProfile(configDir)),
    profiles: () => profileNames(configDir),
  }
}

function profileFile(configDir: string): {active?: unknown; profiles?: unknown} | undefined {
  try {
    return JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')) as {active?: unknown; profiles?: unknown}
  } catch {
    // no file yet (or an unreadable one, which the next real command reports)
    return undefined
  }
}

function profileNames(configDir: string): string[] {
  const file = profileFile(configDir)
  return file?.profiles && typeof file.profiles === 'object' ? Object.keys(file.profiles).sort() : [BUILTIN_PROFILE]
}

function activeProfile(configDir: string): string {
  const active = profileFile(configDir)?.active
  return typeof active === 'string' && active ? active : BUILTIN_PROFILE
}
