import {Command, Flags, type Interfaces} from '@oclif/core'

import {appendAudit, entryFromAttempt} from '../audit/log.js'
import {ExitCode, formatErrorForHuman, OpsError, UsageError} from '../errors.js'
import {type ClientOptions, ServiceClient} from '../http/client.js'
import {closeDispatcher} from '../http/dispatcher.js'
import {DryRunRequest} from '../http/dry-run.js'
import {scrubSecrets} from '../http/redact.js'
import {registerSecret} from '../http/secrets/registry.js'
import {registerArgv, registerEnv} from '../http/secrets/sources.js'
import {guardOutputStreams} from '../http/secrets/streams.js'
import {checkoutTarget, healthTarget, type ResolvedProfile, resolveProfile} from '../profiles/resolve.js'
import {defaultConfigDir, ProfileStore} from '../profiles/store.js'
import {type Format, FORMATS, render, RowWriter} from './output.js'
import {askConfirm, askTypeBack, isInteractive} from './prompt.js'

export type InferFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type InferArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

const GLOBAL = 'GLOBAL'

let epipeWatched = false
/**
 * `opsctl ... | head` closes stdout early: end quietly instead of crashing on EPIPE. Once per
 * process: commands run in-process one after another (tests, runners) must not add a listener each.
 */
function watchStdoutEpipe(): void {
  if (epipeWatched) return
  epipeWatched = true
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  })
}

/**
 * Owns everything commands share: global flags, the resolved profile, lazy service clients,
 * output, confirmation of destructive changes, and the mapping of every error to an exit code.
 * A command parses, makes one call into src/services or src/runtime, returns its data, and renders it only when
 * --json is off.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override baseFlags = {
    profile: Flags.string({
      char: 'p',
      description: 'profile to use (default: the active one); an empty OPSCTL_PROFILE counts as unset, an empty --profile is an error',
      env: 'OPSCTL_PROFILE',
      helpGroup: GLOBAL,
    }),
    output: Flags.option({char: 'o', description: 'output format', helpGroup: GLOBAL, options: FORMATS})(),
    columns: Flags.string({
      delimiter: ',',
      description: 'columns for table/csv output (comma separated, dot paths)',
      helpGroup: GLOBAL,
      multiple: true,
    }),
    verbose: Flags.boolean({description: 'print a redacted HTTP trace on stderr', env: 'OPSCTL_VERBOSE', helpGroup: GLOBAL}),
    'dry-run': Flags.boolean({description: 'print the request as a curl command and send nothing', helpGroup: GLOBAL}),
    yes: Flags.boolean({char: 'y', description: 'skip confirmation of destructive changes', helpGroup: GLOBAL}),
    timeout: Flags.integer({
      default: 30,
      description: 'seconds to wait for the service, retries included',
      env: 'OPSCTL_TIMEOUT',
      helpGroup: GLOBAL,
      min: 1,
    }),
  }
  /** Format when --output is not given. */
  static defaultFormat: Format = 'table'
  static override enableJsonFlag = true

  protected args!: InferArgs<T>
  protected flags!: InferFlags<T>
  private resolved?: Promise<ResolvedProfile>
  private store?: Promise<ProfileStore>

  override async init(): Promise<void> {
    await super.init()
    watchStdoutEpipe()
    // bin/run.js does this before oclif loads; here again for in-process runs (tests, bin/dev.js).
    guardOutputStreams()
    registerEnv()
    registerArgv(this.argv)
    let parsed
    try {
      parsed = await this.parse({
        args: this.ctor.args,
        baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
        enableJsonFlag: this.ctor.enableJsonFlag,
        flags: this.ctor.flags,
        strict: this.ctor.strict,
      })
    } catch (error) {
      // Whatever fails while reading argv (oclif's own checks or a flag's parse function) is bad input.
      if (error instanceof OpsError) throw error
      throw this.usageError((error as Error).message)
    }

    const {args, flags} = parsed
    // Read as "no profile", an empty --profile would quietly act on the active one (oclif itself
    // ignores an empty OPSCTL_PROFILE, like every other empty OPSCTL_* variable).
    if (flags.profile === '') throw new UsageError('--profile must not be empty', ['See the profiles: opsctl profile list'])
    this.flags = flags as InferFlags<T>
    this.args = args as InferArgs<T>
  }

  /** Folder of profiles.json and audit.jsonl: OPSCTL_CONFIG_DIR, else oclif's config dir. */
  protected get configDir(): string {
    return defaultConfigDir(this.config.configDir)
  }

  /**
   * The profiles file, without choosing a profile: for commands that manage profiles, which must
   * work even when the active profile or OPSCTL_PROFILE names one that does not exist.
   * Unsaved changes are written when the command ends (see `finally`).
   */
  protected async profileStore(): Promise<ProfileStore> {
    this.store ??= ProfileStore.open(this.configDir)
    return this.store
  }

  protected async profile(): Promise<ResolvedProfile> {
    this.resolved ??= resolveProfile(await this.profileStore(), this.flags.profile).then((r) => {
      const {health, checkout} = r.profile
      for (const secret of [health.session, checkout.publicKey, checkout.secretKey]) registerSecret(secret)
      return r
    })
    return this.resolved
  }

  protected clientOptions(): Omit<ClientOptions, 'target'> {
    const stderr = (text: string) => process.stderr.write(text + '\n')
    return {
      onAudited: async (record) => {
        const {name, profile} = await this.profile()
        await appendAudit(this.configDir, entryFromAttempt(record, name, profile.env))
      },
      dryRun: this.flags['dry-run'],
      timeoutMs: this.flags.timeout * 1000,
      trace: this.flags.verbose ? stderr : undefined,
      warn: stderr,
    }
  }

  protected async healthClient(language?: string): Promise<ServiceClient> {
    return new ServiceClient({...this.clientOptions(), target: healthTarget(await this.profile(), language)})
  }

  protected async checkoutClient(): Promise<ServiceClient> {
    return new ServiceClient({...this.clientOptions(), target: checkoutTarget(await this.profile())})
  }

  protected get format(): Format {
    return this.flags.output ?? (this.ctor as unknown as typeof BaseCommand).defaultFormat
  }

  /** Renders data on stdout unless --json is on (oclif then prints the returned value). */
  protected async print(data: unknown, defaultColumns?: string[]): Promise<void> {
    if (this.jsonEnabled()) return
    const columns = this.flags.columns && this.flags.columns.length > 0 ? this.flags.columns : defaultColumns
    process.stdout.write((await render(data, {columns, format: this.format})) + '\n')
  }

  /** For listings that stream; under --json the rows are collected and returned instead. */
  protected rowWriter(defaultColumns?: string[]): RowWriter {
    const columns = this.flags.columns && this.flags.columns.length > 0 ? this.flags.columns : defaultColumns
    return new RowWriter({columns, format: this.format})
  }

  /** A file the user asked for (a JUnit report), scrubbed of secrets like stdout. */
  protected async writeOutputFile(path: string, text: string): Promise<void> {
    const {writeFile} = await import('node:fs/promises')
    await writeFile(path, scrubSecrets(text))
  }

  /** Chatter for people, on stderr; silent under --json. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(message + '\n')
  }

  /** On a production profile, says where a change is about to go before it goes. */
  protected async announceChange(service: 'checkout' | 'health'): Promise<void> {
    const r = await this.profile()
    if (r.profile.env === 'production') {
      process.stderr.write(`Profile ${r.name} (production) -> ${r.profile[service].baseUrl}\n`)
    }
  }

  /**
   * Destructive changes need consent: --yes, or a prompt in a terminal (on a production profile,
   * the resource id typed back). Without a terminal and without --yes, nothing is sent (exit 2).
   * A dry run sends nothing, so it needs no consent.
   */
  protected async confirmDestructive(service: 'checkout' | 'health', action: string, resourceId: string): Promise<void> {
    if (this.flags['dry-run']) return
    await this.announceChange(service)
    if (this.flags.yes) return
    this.requireConsentPossible(action)

    const r = await this.profile()
    const ok =
      r.profile.env === 'production'
        ? await askTypeBack(`${action} on PRODUCTION (${r.name}). Type ${resourceId} to confirm:`, resourceId)
        : await askConfirm(`${action}?`)
    if (!ok) throw new UsageError('Not confirmed; nothing was sent')
  }

  /**
   * For commands that read before they ask (void, refund): without --yes and without a terminal
   * consent cannot be given, so say so before the first request (exit 2 means nothing was sent).
   */
  protected requireConsentPossible(action: string): void {
    if (this.flags['dry-run'] || this.flags.yes || isInteractive()) return
    throw new UsageError(`${action} is destructive and needs confirmation; pass --yes to confirm without a terminal`)
  }

  override async catch(error: Error & {oclif?: {exit?: number}}): Promise<void> {
    if (error instanceof DryRunRequest) {
      process.exitCode = ExitCode.Ok
      if (this.jsonEnabled()) this.logJson({dryRun: true, request: error.request, curl: error.curl})
      else process.stdout.write(error.curl + '\n')
      return
    }

    const opsError = this.toOpsError(error)
    process.exitCode = opsError.exitCode
    // The stream guard scrubs these writes too; this also covers a process whose streams it does not guard.
    const scrub = (text: string) => scrubSecrets(text)
    if (this.jsonEnabled()) {
      process.stderr.write(scrub(JSON.stringify({error: {name: opsError.name, ...opsError.toJSON()}}, null, 2)) + '\n')
    } else {
      process.stderr.write(scrub(formatErrorForHuman(opsError)) + '\n')
      if (this.flags?.verbose && opsError.exitCode === ExitCode.Unexpected && error.stack) process.stderr.write(scrub(error.stack) + '\n')
    }
  }

  override async finally(error: Error | undefined): Promise<void> {
    try {
      await this.saveProfiles()
    } finally {
      await closeDispatcher()
    }

    return super.finally(error)
  }

  /** oclif's multi-line parse messages, as one line, with where to read more. */
  private usageError(message: string): UsageError {
    const line = message
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' ')
      .replace(/See more help with --help$/, '')
      .replace(/^Parsing (--[\w-]+) /, '$1: ')
      .trim()
    return new UsageError(line, [`See: opsctl ${this.id?.replaceAll(':', ' ') ?? ''} --help`.trim()])
  }

  /** A change a command made to the profiles and did not save itself is written now, never lost. */
  private async saveProfiles(): Promise<void> {
    const store = await this.store?.catch(() => undefined)
    if (!store?.unsaved) return
    try {
      await store.save()
    } catch (error) {
      process.exitCode = ExitCode.Unexpected
      process.stderr.write(`Error: could not save ${store.path}: ${(error as Error).message.split('\n')[0]}\n`)
    }
  }

  private toOpsError(error: Error & {oclif?: {exit?: number}}): OpsError {
    if (error instanceof OpsError) return error
    if (error.name === 'ExitPromptError' || error.name === 'AbortPromptError') return new UsageError('Cancelled; nothing was sent')
    if (error.oclif?.exit !== undefined) return this.usageError(error.message)

    return new OpsError(`Unexpected error: ${error.message}`, ExitCode.Unexpected, ['Run again with --verbose for details'])
  }
}
