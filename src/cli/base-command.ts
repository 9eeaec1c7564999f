import type {FlagInput} from '@oclif/core/interfaces'

import {Command, type Interfaces} from '@oclif/core'

import type {PagedDocument, PagedOperation, StreamOptions} from './paging.js'

import {ExitCode, InputError, OpsError, UsageError} from '../errors.js'
import {type ClientOptions, ServiceClient} from '../http/client.js'
import {closeConnections} from '../http/connections.js'
import {DryRunRequest} from '../http/dry-run.js'
import {type ItemOf, type Operation} from '../http/operation.js'
import {scrubSecrets} from '../http/redact.js'
import {registerSecret} from '../http/secrets/registry.js'
import {registerArgv, registerEnv} from '../http/secrets/sources.js'
import {guardOutputStreams} from '../http/secrets/streams.js'
import {profileSecrets, type ResolvedProfile, resolveProfile} from '../profiles/resolve.js'
import {defaultConfigDir, ProfileStore} from '../profiles/store.js'
// Every service's module, registered with the HTTP layer before a client is made.
import '../services/registry.js'
import {ClientWiring} from './client-wiring.js'
import {type ConsentContext, describeChange, requireConsentPossible} from './consent.js'
import {writeError} from './error-output.js'
import {type GlobalFlagValues, sendFlags} from './flags.js'
import {type HintContext, hints, withHints} from './hints.js'
import {flagNamer} from './input-words.js'
import {type Format} from './output.js'
import {CommandOutput} from './output/command-output.js'
import {type View} from './output/view.js'
import {parseUsageError} from './parse-error.js'

/** A command that does not choose its global flags has those of BaseCommand: `sendFlags`. */
type GlobalsOf<T extends typeof Command> = string extends keyof T['baseFlags'] ? typeof sendFlags : T['baseFlags']
export type InferFlags<T extends typeof Command> = Interfaces.InferredFlags<GlobalsOf<T> & T['flags']>
export type InferArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** A command (or, with `flag`, one of its flags) that works only against a sandbox profile. */
export interface SandboxRequirement {
  /** Only when this flag is set (e.g. `register`). */
  flag?: string
  /** Why, said first: "checkout pay acts as a buyer on the sandbox's payment page". */
  why: string
  suggestions?: string[]
}


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
 * Owns everything commands share: the global flags a command chose (./flags.ts), the resolved
 * profile, lazy service clients, output, consent to changes (from the table, ./consent.ts), the
 * sandbox-only requirement, and the mapping of every error to an exit code (with ./hints.ts).
 * A command parses, makes one call into src/services or src/runtime and returns its document (the
 * declared type of `run()`); the base command prints that document under the command's `view`,
 * after `--query`, in the format asked for (./output.ts). --json and -o json print the same thing.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  /** The global flags this command honours (see ./flags.ts): by default those of a command that sends. */
  static override baseFlags: FlagInput = sendFlags
  /**
   * The destructive row this command exists to call: without --yes and without a terminal it is
   * refused before anything is sent, even the reads before it (the command then offers `changeFlags`).
   */
  static changes?: Operation
  /**
   * The audited row this command exists to call (default: `changes`, when audited): a run that
   * ends before sending it still leaves its audit line (./unsent-attempt.ts).
   */
  static audits?: Operation
  static requiresSandbox?: SandboxRequirement
  /**
   * Every destructive call this command makes removes something it created itself (smoke's
   * cleanup, `webhook listen --register` putting the webhooks back): no consent is asked for them.
   */
  static undoesOwnChanges = false
  /** Format when --output is not given. */
  static defaultFormat: Format = 'table'
  /** How the document `run()` returns is shown in tables, CSV and ndjson (./output/view.ts). */
  static view: View = {}
  /** A service input this command's flag spells otherwise (`{callbackUrl: 'url'}`); the rest are `--` + the input in kebab case. */
  static inputFlags?: Readonly<Record<string, string>>
  static override enableJsonFlag = true

  protected args!: InferArgs<T>
  protected flags!: InferFlags<T>
  /** This run's output: format, view, notes, what was shown (./output/command-output.ts). */
  protected readonly output = new CommandOutput({
    defaultFormat: (this.constructor as typeof BaseCommand).defaultFormat,
    displayZone: () => this.displayZone(),
    globals: () => this.globals,
    id: this.id,
    jsonEnabled: () => this.jsonEnabled(),
    view: () => this.view,
  })

  /** This run's clients: consent, audit, trace (./client-wiring.ts). */
  protected readonly wiring = new ClientWiring({
    configDir: defaultConfigDir(this.config.configDir),
    consent: () => this.consentContext(),
    globals: () => this.globals,
    profile: () => this.profile(),
  })

  private resolved?: Promise<ResolvedProfile>
  private store?: Promise<ProfileStore>

  override async init(): Promise<void> {
    await super.init()
    this.printWhatRunReturns()
    watchStdoutEpipe()
    // bin/run.js does this before oclif loads; here again for in-process runs (tests, bin/dev.js).
    guardOutputStreams()
    registerEnv()
    registerArgv(this.argv)
    let parsed
    try {
      parsed = await this.parse({
        args: withoutStdin(this.ctor.args),
        baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
        enableJsonFlag: this.ctor.enableJsonFlag,
        flags: this.ctor.flags,
        strict: this.ctor.strict,
      })
    } catch (error) {
      // argv was read, and refused: oclif would otherwise warn (outside production) that this command never parsed it.
      this.parsed = true
      // Whatever fails while reading argv (oclif's own checks or a flag's parse function) is bad input.
      if (error instanceof OpsError) throw error
      // Loaded only here: its string-distance package builds an Intl.Collator when loaded (~10 ms).
      const {unknownFlagError} = await import('./unknown-flag.js')
      throw unknownFlagError(error, {baseFlags: (super.ctor as typeof BaseCommand).baseFlags, enableJsonFlag: this.ctor.enableJsonFlag, flags: this.ctor.flags, id: this.id}) ?? this.usageError(error as Error)
    }

    const {args, flags} = parsed
    // Read as "no profile", an empty --profile would quietly act on the active one (oclif itself
    // ignores an empty OPSCTL_PROFILE, like every other empty OPSCTL_* variable).
    if (flags.profile === '') throw new UsageError('--profile must not be empty', [hints.profileList])
    this.flags = flags as InferFlags<T>
    this.args = args as InferArgs<T>
    this.output.checkFlags()
    await checkSandboxRequirement(this.statics.requiresSandbox, this.flags as Record<string, unknown>, () => this.profile())
    const {changes} = this.statics
    if (changes?.destructive) requireConsentPossible(this.consentContext(), this.changeAction(changes))
  }

  /** How the consent check at start names the change (a bulk run names its file, not one id). */
  protected changeAction(changes: Operation): string {
    return describeChange(changes, this.args as Record<string, string>).action
  }

  /**
   * A command's `run()` returns its document; this prints it in every format (oclif would print it
   * only under --json, after `finally`). It wraps this instance's `run` so that printing happens
   * inside oclif's error handling: a failure while printing reaches `catch` and has its exit code.
   */
  private printWhatRunReturns(): void {
    const run = this.run.bind(this)
    this.run = async () => {
      const result = await run()
      await this.output.print(result)
      return result
    }
  }

  /** oclif prints a command's result under --json once the run ends; this class has printed it already (`printWhatRunReturns`). */
  override logJson(json: unknown): void {
    if (!this.output.printed) super.logJson(json)
  }

  /** The global flags' values; a command may not offer all of them. */
  protected get globals(): GlobalFlagValues {
    return this.flags as GlobalFlagValues
  }

  protected get dryRun(): boolean {
    return this.globals['dry-run'] === true
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
    // oclif fills --profile from OPSCTL_PROFILE: passed on only when typed, so an unknown name can say where it came from.
    this.resolved ??= resolveProfile(await this.profileStore(), profileTyped(this.argv) ? this.flags?.profile : undefined).then((r) => {
      for (const secret of profileSecrets(r.profile)) registerSecret(secret)
      return r
    })
    return this.resolved
  }

  // What a command calls most, kept here as one-line shortcuts to `this.wiring` and `this.output`.
  protected clientOptions(service?: string): Omit<ClientOptions, 'target'> {
    return this.wiring.options(service)
  }

  protected async client(service: string, language?: string): Promise<ServiceClient> {
    return this.wiring.client(service, language)
  }

  protected note(message: string): void {
    this.output.note(message)
  }

  /** The view of this run's document; a command whose document differs by mode (smoke --dry-run) overrides it. */
  protected get view(): View {
    return this.statics.view
  }

  /** The zone of times in tables and CSV when the view names none; the health commands use the user's. */
  protected async displayZone(): Promise<string | undefined> {
    return undefined
  }

  /** A paged listing (the command offers `pagingFlags(row)`), streamed into the view: `{count, <items>, paging}` (./paging.ts). */
  protected async streamPages<O extends PagedOperation>(
    client: Pick<ServiceClient, 'call'>,
    row: O,
    input: Parameters<typeof import('./paging.js').streamPages<O>>[3],
    options?: StreamOptions<ItemOf<O>>,
  ): Promise<PagedDocument<O>> {
    const {streamPages} = await import('./paging.js')
    const {output} = this
    const host = {commandName: (this.id ?? '').replaceAll(':', ' '), flags: this.flags as Record<string, unknown>, listWriter: () => output.listWriter<ItemOf<O> & object>(), note: (m: string) => output.note(m), viewList: this.view.list}
    return streamPages(host, client, row, input, options)
  }

  /** A file the user asked for (a JUnit report), scrubbed of secrets like stdout. */
  protected async writeOutputFile(path: string, text: string): Promise<void> {
    const {writeFile} = await import('node:fs/promises')
    await writeFile(path, scrubSecrets(text))
  }

  private get statics(): typeof BaseCommand {
    return this.ctor as unknown as typeof BaseCommand
  }

  private consentContext(): ConsentContext {
    return {dryRun: this.dryRun, ownChanges: this.statics.undoesOwnChanges, profile: () => this.profile(), yes: this.globals.yes === true}
  }

  override async catch(error: Error & {oclif?: {exit?: number}}): Promise<void> {
    if (error instanceof DryRunRequest) {
      process.exitCode = ExitCode.Ok
      if (this.jsonEnabled()) this.logJson({dryRun: true, request: error.request, curl: error.curl})
      else {
        process.stdout.write(error.curl + '\n')
        const {variables} = error
        if (variables.length > 0) this.note(`Note: the curl reads ${variables.map((v) => `$${v}`).join(', ')}; export ${variables.length === 1 ? 'it' : 'them'} before running it`)
      }

      return
    }

    const opsError = withHints(this.toOpsError(error), await this.hintContext())
    process.exitCode = opsError.exitCode
    const {audits, changes} = this.statics
    // With argv unparsed (the error was oclif's), the profile is the default one unless --profile named another.
    const profile = async () => (!this.flags && profileTyped(this.argv) ? undefined : this.profile().catch(() => undefined))
    await this.wiring.auditUnsent(audits ?? (changes?.audited ? changes : undefined), opsError, {args: this.args ?? {}, flags: this.flags ?? {}, profile})
    // The stream guard scrubs these writes too; writeError also covers a process whose streams it does not guard.
    writeError(opsError, this.jsonEnabled())
    if (!this.jsonEnabled() && this.globals?.verbose && opsError.exitCode === ExitCode.Unexpected && error.stack) {
      process.stderr.write(scrubSecrets(error.stack) + '\n')
    }
  }

  override async finally(error: Error | undefined): Promise<void> {
    try {
      await this.saveProfiles()
    } finally {
      await closeConnections()
    }

    return super.finally(error)
  }

  /** The profile a hint's command line must name: the one this run used, when it is not the active one. */
  private async hintContext(): Promise<HintContext> {
    const resolved = await this.resolved?.catch(() => undefined)
    return resolved && resolved.name !== resolved.store.activeName ? {profile: resolved.name} : {}
  }

  /** oclif's multi-line parse messages, as one short line, with where to read more (./parse-error.ts). */
  private usageError(error: Error): UsageError {
    return parseUsageError(error, {args: this.ctor.args, id: this.id})
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
    if (error instanceof InputError) return error.worded(flagNamer(this.statics.inputFlags))
    if (error instanceof OpsError) return error
    if (error.name === 'ExitPromptError' || error.name === 'AbortPromptError') return new UsageError('Cancelled; nothing was sent')
    if (error.oclif?.exit !== undefined) return this.usageError(error)

    return new OpsError(`Unexpected error: ${error.message}`, ExitCode.Unexpected, ['Run again with --verbose for details'])
  }
}

/**
 * oclif hands piped stdin to the first missing argument: `echo chk_1 | opsctl checkout void` would
 * void chk_1 without saying so, and the stdin a command reads itself (--password-stdin) would be
 * gone. An argument comes only from the command line.
 */
function withoutStdin<A extends Record<string, object> | undefined>(args: A): A {
  if (!args) return args
  return Object.fromEntries(Object.entries(args).map(([name, arg]) => [name, {...arg, ignoreStdin: true}])) as A
}

/** `--profile` (or `-p`) was typed, not filled from OPSCTL_PROFILE by oclif. */
function profileTyped(argv: readonly string[]): boolean {
  return argv.some((a) => a.startsWith('-p') || a === '--profile' || a.startsWith('--profile='))
}

/** A command (or one of its flags) that works only against a sandbox is refused on another profile: exit 2, nothing sent. */
async function checkSandboxRequirement(requirement: SandboxRequirement | undefined, flags: Record<string, unknown>, profile: () => Promise<ResolvedProfile>): Promise<void> {
  if (!requirement || (requirement.flag && !flags[requirement.flag])) return
  const {name, profile: resolved} = await profile()
  if (resolved.env === 'sandbox') return
  throw new UsageError(`${requirement.why}; profile ${name} is ${resolved.env}, and this works only against a sandbox; nothing was sent`, requirement.suggestions)
}
