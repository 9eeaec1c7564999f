import {existsSync} from 'node:fs'
import {join} from 'node:path'

import {ExitCode, OpsError, UsageError} from '../errors.js'
import {initialFile, Profile, PROFILE_NAME, ProfileFile} from './schema.js'

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

type ConfInstance = {path: string; store: Record<string, unknown>}

/**
 * Named profiles in `<config dir>/profiles.json` (mode 0600), on `conf` for atomic writes.
 * Every read is validated with zod; a file that fails is reported, never replaced.
 */
export class ProfileStore {
  private constructor(
    private readonly conf: ConfInstance,
    private data: ProfileFile,
  ) {}

  get path(): string {
    return this.conf.path
  }

  get activeName(): string {
    return this.data.active
  }

  static async open(configDir: string): Promise<ProfileStore> {
    const {default: Conf} = await import('conf')
    const path = join(configDir, `${FILE_NAME}.json`)
    const fresh = !existsSync(path)
    let conf: ConfInstance
    try {
      conf = new Conf({cwd: configDir, configName: FILE_NAME, configFileMode: 0o600, projectName: 'opsctl'})
    } catch (error) {
      throw new ConfigFileError(path, (error as Error).message.split('\n')[0])
    }

    if (fresh) {
      conf.store = initialFile()
      return new ProfileStore(conf, initialFile())
    }

    const parsed = ProfileFile.safeParse(conf.store)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new ConfigFileError(path, `${issue.path.join('.') || 'root'}: ${issue.message}`)
    }

    return new ProfileStore(conf, parsed.data)
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
    this.write({...this.data, profiles: {...this.data.profiles, [name]: Profile.parse(profile)}})
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
    this.write({...this.data, active, profiles})
  }

  use(name: string): void {
    this.require(name)
    this.write({...this.data, active: name})
  }

  private write(next: ProfileFile): void {
    this.conf.store = next
    this.data = next
  }
}
