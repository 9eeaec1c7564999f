import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {ExitCode, OpsError, UsageError} from '../errors.js'
import {checkProfileFile, initialFile, type Profile, PROFILE_NAME, type ProfileFile, profileProblem} from './schema.js'

const FILE_NAME = 'profiles'

/** A broken profiles file: named, never overwritten. */
export class ConfigFileError extends OpsError {
  constructor(path: string, problem: string) {
    super(`The profiles file ${path} is invalid (${problem}); fix or move it, nothing was changed`, ExitCode.Usage)
  }
}

export function defaultConfigDir(fallback: string): string {
  return process.env.OPSCTL_CONFIG_DIR || fallback
}

/**
 * Named profiles in `<config dir>/profiles.json` (mode 0600).
 *
 * Reading is a plain read, checked against the shape in schema.ts: every command reads the file,
 * and importing `conf` costs ~65 ms of start-up (it loads ajv and ajv-formats for a JSON-schema
 * feature we do not use).
 * Writing goes through `conf` (atomic write, file mode 0600, folder created), imported only when
 * something changes. A file that fails validation is reported, never replaced.
 *
 * Changes (`set`, `update`, `remove`, `use`) apply at once in memory; `await save()` writes them.
 * BaseCommand also saves any unsaved change when a command ends, so a change is never lost, but a
 * command should save before it reports success so that a write error is reported instead.
 */
export class ProfileStore {
  private dirty = false

  private constructor(
    private readonly configDir: string,
    private data: ProfileFile,
  ) {}

  get path(): string {
    return join(this.configDir, `${FILE_NAME}.json`)
  }

  get activeName(): string {
    return this.data.active
  }

  /** True when there are changes that `save()` has not written yet. */
  get unsaved(): boolean {
    return this.dirty
  }

  static async open(configDir: string): Promise<ProfileStore> {
    const path = join(configDir, `${FILE_NAME}.json`)
    let text: string | undefined
    try {
      text = readFileSync(path, 'utf8')
    } catch (error) {
      const {code, message} = error as NodeJS.ErrnoException
      if (code !== 'ENOENT') throw new ConfigFileError(path, code ?? message.split('\n')[0])
    }

    if (text === undefined) {
      const store = new ProfileStore(configDir, initialFile())
      store.dirty = true
      await store.save()
      return store
    }

    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      throw new ConfigFileError(path, `not JSON: ${(error as Error).message.split('\n')[0]}`)
    }

    const checked = checkProfileFile(json)
    if (checked.problem !== undefined) throw new ConfigFileError(path, checked.problem)
    return new ProfileStore(configDir, checked.data)
  }

  names(): string[] {
    return Object.keys(this.data.profiles).sort()
  }

  get(name: string): Profile | undefined {
    return Object.hasOwn(this.data.profiles, name) ? this.data.profiles[name] : undefined
  }

  require(name: string): Profile {
    if (!name) {
      throw new UsageError('No active profile', ['Choose one: opsctl profile use <name>', 'See the profiles: opsctl profile list'])
    }

    const profile = this.get(name)
    if (!profile) {
      throw new UsageError(`No profile named "${name}"`, [`See the profiles: opsctl profile list`, `Create it: opsctl profile add ${name}`])
    }

    return profile
  }

  set(name: string, profile: Profile): void {
    if (!PROFILE_NAME.test(name)) throw new UsageError(`Invalid profile name "${name}": use letters, digits, ".", "_" or "-"`)
    const problem = profileProblem(profile)
    if (problem) throw new UsageError(`Invalid profile ${name}: ${problem}`)
    this.change({...this.data, profiles: {...this.data.profiles, [name]: structuredClone(profile)}})
  }

  update(name: string, change: (p: Profile) => Profile): Profile {
    const next = change(structuredClone(this.require(name)))
    this.set(name, next)
    return next
  }

  /**
   * Removes a profile. Removing the active one leaves no profile active: silently making another
   * one active could send the next command to production.
   */
  remove(name: string): void {
    this.require(name)
    const profiles = {...this.data.profiles}
    delete profiles[name]
    const active = this.data.active === name ? '' : this.data.active
    this.change({...this.data, active, profiles})
  }

  use(name: string): void {
    this.require(name)
    this.change({...this.data, active: name})
  }

  /** Writes unsaved changes (atomically, mode 0600). */
  async save(): Promise<void> {
    if (!this.dirty) return
    const {default: Conf} = await import('conf')
    const conf = new Conf<ProfileFile>({
      configFileMode: 0o600,
      configName: FILE_NAME,
      cwd: this.configDir,
      projectName: 'opsctl',
    })
    conf.store = this.data
    this.dirty = false
  }

  private change(next: ProfileFile): void {
    this.data = next
    this.dirty = true
  }
}
