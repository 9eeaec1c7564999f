import {join} from 'node:path'

import {ExitCode, MIB, OpsError, UsageError} from '../errors.js'
import {ensurePrivateFolder, PRIVATE_FILE_MODE, readConfigText} from './private-files.js'
import {checkProfileFile, initialFile, type Profile, PROFILE_NAME, type ProfileFile, profileProblem} from './schema.js'

const FILE_NAME = 'profiles'

/** One change to the profiles: applied at once in memory, and again to the file as it is when saved. */
type Change = (file: ProfileFile) => ProfileFile

/** A broken profiles file: named, never overwritten. */
export class ConfigFileError extends OpsError {
  constructor(path: string, problem: string) {
    super(`The profiles file ${path} is invalid (${problem}); fix or move it, nothing was changed`, ExitCode.Usage)
  }
}

export function defaultConfigDir(fallback: string): string {
  return process.env.OPSCTL_CONFIG_DIR || fallback
}

export function profileExistsError(name: string): UsageError {
  return new UsageError(`Profile ${name} exists; pass --force to replace it`)
}

/**
 * Named profiles in `<config dir>/profiles.json` (mode 0600, folder 0700).
 *
 * Reading is a plain read without a lock (a writer replaces the file by an atomic rename, so a
 * reader sees the old file or the new one), checked against the shape in schema.ts: every command
 * reads the file.
 *
 * Changes (`set`, `update`, `remove`, `use`) apply at once in memory and are remembered; `await
 * save()` takes the lock on the file (lock.ts), reads the file again, applies the remembered changes
 * to what it finds, and writes the result through `write-file-atomic` (a 0600 temporary file,
 * synced, renamed over it). So a change
 * another process saved in between is kept, never written over, and a change that no longer applies
 * (the profile was removed meanwhile) fails with nothing written. The lock and the writer are imported
 * only when something changes. A file that fails validation is reported, never replaced.
 *
 * BaseCommand also saves any unsaved change when a command ends, so a change is never lost, but a
 * command should save before it reports success so that a write error is reported instead.
 */
export class ProfileStore {
  private pending: Change[] = []

  private constructor(
    private readonly configDir: string,
    private data: ProfileFile,
  ) {}

  get path(): string {
    return profilesPath(this.configDir)
  }

  get activeName(): string {
    return this.data.active
  }

  /** True when there are changes that `save()` has not written yet. */
  get unsaved(): boolean {
    return this.pending.length > 0
  }

  static async open(configDir: string): Promise<ProfileStore> {
    const found = readProfileFile(profilesPath(configDir))
    if (found) return new ProfileStore(configDir, found)
    const store = new ProfileStore(configDir, withTable(initialFile()))
    // A first run writes the built-in profile; save() keeps whatever another first run wrote meanwhile.
    store.change((file) => file)
    await store.save()
    return store
  }

  names(): string[] {
    return Object.keys(this.data.profiles).sort()
  }

  get(name: string): Profile | undefined {
    return findProfile(this.data, name)
  }

  require(name: string): Profile {
    return requireProfile(this.data, name)
  }

  /** Creates or replaces a profile; with `replace: false`, a profile of that name (even one saved meanwhile by another process) is an error. */
  set(name: string, profile: Profile, {replace = true}: {replace?: boolean} = {}): void {
    if (!PROFILE_NAME.test(name)) throw new UsageError(`Invalid profile name "${name}": use letters, digits, ".", "_" or "-"`)
    const value = structuredClone(profile)
    this.change((file) => {
      if (!replace && findProfile(file, name)) throw profileExistsError(name)
      return withProfile(file, name, structuredClone(value))
    })
  }

  /**
   * Changes one profile. `change` must only compute: save() applies it again, to the profile as the
   * file has it then, so that what another process changed in that profile is kept.
   */
  update(name: string, change: (p: Profile) => Profile): Profile {
    this.change((file) => withProfile(file, name, change(structuredClone(requireProfile(file, name)))))
    return structuredClone(this.require(name))
  }

  /**
   * Removes a profile. Removing the active one leaves no profile active: silently making another
   * one active could send the next command to production.
   */
  remove(name: string): void {
    this.change((file) => {
      requireProfile(file, name)
      const profiles = profileTable(file.profiles)
      delete profiles[name]
      return {...file, active: file.active === name ? '' : file.active, profiles}
    })
  }

  use(name: string): void {
    this.change((file) => {
      requireProfile(file, name)
      return {...file, active: name}
    })
  }

  /**
   * Writes unsaved changes, under the lock, over the file as it is now (see the class comment).
   * If a change no longer applies, nothing is written, the changes are dropped and the error is thrown.
   */
  async save(): Promise<void> {
    if (!this.unsaved) return
    const changes = this.pending
    this.pending = []
    await ensurePrivateFolder(this.configDir)
    const [{withFileLock}, {default: writeFileAtomic}] = await Promise.all([import('./lock.js'), import('write-file-atomic')])
    this.data = await withFileLock(this.path, async (stillHeld) => {
      let next = readProfileFile(this.path) ?? withTable(initialFile())
      for (const change of changes) next = change(next)
      stillHeld()
      // A temporary file created 0600, synced, then renamed over profiles.json: a reader sees the old file or the new one.
      await writeFileAtomic(this.path, `${JSON.stringify(next, undefined, '\t')}\n`, {mode: PRIVATE_FILE_MODE})
      return next
    })
  }

  private change(apply: Change): void {
    this.data = apply(this.data)
    this.pending.push(apply)
  }
}

/** Far more than any profiles.json (a few KB): a larger file is not one opsctl wrote. */
const MAX_PROFILES_BYTES = 4 * MIB

export function profilesPath(configDir: string): string {
  return join(configDir, `${FILE_NAME}.json`)
}

/** profiles.json as it is on disk now, checked; undefined when there is none yet. Writes nothing. */
export function readProfileFile(path: string): ProfileFile | undefined {
  let text: string | undefined
  try {
    text = readConfigText(path, MAX_PROFILES_BYTES)
  } catch (error) {
    throw new ConfigFileError(path, (error as Error).message)
  }

  if (text === undefined) return undefined

  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new ConfigFileError(path, `not JSON: ${(error as Error).message.split('\n')[0]}`)
  }

  const checked = checkProfileFile(json)
  if (checked.problem !== undefined) throw new ConfigFileError(path, checked.problem)
  return withTable(checked.data)
}

/** Profiles are keyed by names users type: a null-prototype table, so no name reaches Object.prototype. */
function profileTable(from: Record<string, Profile>): Record<string, Profile> {
  return Object.assign(Object.create(null) as Record<string, Profile>, from)
}

function withTable(file: ProfileFile): ProfileFile {
  return {...file, profiles: profileTable(file.profiles)}
}

function findProfile(file: ProfileFile, name: string): Profile | undefined {
  return Object.hasOwn(file.profiles, name) ? file.profiles[name] : undefined
}

function requireProfile(file: ProfileFile, name: string): Profile {
  if (!name) {
    throw new UsageError('No active profile', ['Choose one: opsctl profile use <name>', 'See the profiles: opsctl profile list'])
  }

  const profile = findProfile(file, name)
  if (!profile) {
    throw new UsageError(`No profile named "${name}"`, [`See the profiles: opsctl profile list`, `Create it: opsctl profile add ${name}`])
  }

  return profile
}

function withProfile(file: ProfileFile, name: string, profile: Profile): ProfileFile {
  const problem = profileProblem(profile)
  if (problem) throw new UsageError(`Invalid profile ${name}: ${problem}`)
  const profiles = profileTable(file.profiles)
  profiles[name] = profile
  return {...file, profiles}
}
