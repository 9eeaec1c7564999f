import type {LocalKnowledge} from './candidates.js'

import {createdCheckouts, newestCreated} from '../../audit/history.js'
import {OUT_OF_ORDER_MARGIN_MS, readAudit} from '../../audit/read.js'
import {recentEventIds} from '../../profiles/recent-events.js'
import {BUILTIN_PROFILE, type Profile} from '../../profiles/schema.js'
import {profilesPath, readProfileFile} from '../../profiles/store.js'
import {sandboxTenantOf} from '../../services/sandbox-defaults.js'

/** How many checkout ids Tab offers: the newest created from this machine. */
const RECENT_CHECKOUTS = 50

/** What this machine knows, read from the config folder without writing to it (a first run has no files yet). */
export function localKnowledge(configDir: string): LocalKnowledge {
  return {
    checkoutIds: () =>
      readAudit(configDir, {enough: newestCreated(RECENT_CHECKOUTS, OUT_OF_ORDER_MARGIN_MS)}).then(
        ({entries}) =>
          createdCheckouts(entries)
            .slice(0, RECENT_CHECKOUTS)
            .map((c) => c.checkoutId),
        () => [],
      ),
    eventIds: () => recentEventIds(configDir, process.env.OPSCTL_PROFILE || activeProfile(configDir)),
    profiles: () => profileNames(configDir),
    tenantIds: () => tenantIds(configDir),
  }
}

/** profiles.json as the store reads it, without writing one; none yet, or a bad one (the next real command reports it), is the built-in profile alone. */
function profileFile(configDir: string): undefined | {active: string; profiles: Record<string, unknown>} {
  try {
    return readProfileFile(profilesPath(configDir))
  } catch {
    return undefined
  }
}

function profileNames(configDir: string): string[] {
  const file = profileFile(configDir)
  return file ? Object.keys(file.profiles).sort() : [BUILTIN_PROFILE]
}

function activeProfile(configDir: string): string {
  return profileFile(configDir)?.active || BUILTIN_PROFILE
}

/** The tenants the sandbox profiles point at (`<origin>/t/<id>`), from profiles.json alone: nothing is sent on Tab. */
function tenantIds(configDir: string): string[] {
  const profiles = Object.values(profileFile(configDir)?.profiles ?? {}) as Profile[]
  const ids = profiles.flatMap((p) => (p.env === 'sandbox' ? (sandboxTenantOf(p.health.baseUrl) ?? []) : []))
  return [...new Set(ids)].sort()
}
