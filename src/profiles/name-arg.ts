import {UsageError} from '../errors.js'

/**
 * Parses the <name> argument of the profile commands. An empty name is refused: read as "no name",
 * it would fall through to the active profile (`profile show ''`) or to a misleading "No active
 * profile" (`profile remove ''`).
 */
export async function parseProfileName(name: string): Promise<string> {
  if (!name) throw new UsageError('The profile name must not be empty', ['See the profiles: opsctl profile list'])
  return name
}
