import type {Interfaces} from '@oclif/core'
import type {FlagInput} from '@oclif/core/interfaces'

import {Command} from '@oclif/core/command'

import type {PagedDocument, PagedOperation, PagingInput, StreamOptions} from './paging.js'

export type {SandboxRequirement} from './command-setup.js'

import {OpsError, UsageError} from '../errors.js'
import {type ClientOptions, ServiceClient} from '../http/client.js'
import {closeConnections} from '../http/connections.js'
import {DryRunRequest} from '../http/dry-run.js'
import {type ItemOf, type Operation} from '../http/operation.js'
import {registerSecret} from '../http/secrets/registry.js'
import {registerArgv, registerEnv} from '../http/secrets/sources.js'
import {guardOutputStreams} from '../http/secrets/streams.js'
import {profileSecrets, type ResolvedProfile, resolveProfile} from '../profiles/resolve.js'
import {defaultConfigDir, ProfileStore} from '../profiles/store.js'
import {type ChangeClient, type ChangeSteps} from '../services/change.js'
// Every service's module, registered with the HTTP layer before a client is made.
import '../services/registry.js'
import {ClientWiring} from './client-wiring.js'
import {printDryRun, toOpsError, writeCommandError} from './command-errors.js'
import {checkSandboxRequirement, profileTyped, type SandboxRequirement, saveUnsavedProfiles, watchStdoutEpipe, withoutStdin} from './command-setup.js'
import {type ConsentContext, describeChange, requireConsentPossible} from './consent.js'
import {type GlobalFlagValues, sendFlags} from './flags.js'
import {type HintContext, hints, withHints} from './hints.js'
import {type Format} from './output.js'
import {CommandOutput} from './output/command-output.js'
import {type View} from './output/view.js'
import {parseUsageError} from './parse-error.js'

/** A command that does not choose its global flags has those of BaseCommand: `sendFlags`. */
type GlobalsOf<T extends typeof Command> = string extends keyof T['baseFlags'] ? typeof sendFlags : T['baseFlags']
export type InferFlags<T extends typeof Command> = Interfaces.InferredFlags<GlobalsOf<T> & T['flags']>
export type InferArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/**
 * Parses argv (the global flags a command chose: ./flags.ts), resolves the profile, and maps every
 * error to an exit code (./command-errors.ts, with ./hints.ts). The rest are small objects a
 * command reaches: `this.output` (format, view, notes, printing: ./output/command-output.ts) and
 * `this.wiring` (clients with consent, audit and trace: ./client-wiring.ts). A command parses,
 * makes one call into src/services or src/runtime and returns its document (the declared type of
 * `run()`), which `this.output` prints under the command's `view` in the format asked for.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  /** The global flags this command honours (see ./flags.ts): by default those of a command that sends. */
  static override baseFlags: FlagInput = sendFlags
  /** The destructive row this command exists to call: without --yes and without a terminal it is refused before anything is sent, even the reads before it (the command then offers `changeFlags`). */
  static changes?: Operation
  /** The audited row this command exists to call (default: `changes`, when audited): a run that ends before sending it still leaves its audit line (./unsent-attempt.ts). */
  static audits?: Operation
  static requiresSandbox?: SandboxRequirement
  /** Every destructive call this command makes removes something it created itself (smoke's cleanup, `webhook listen --register` putting the webhooks back): no consent is asked for them. */
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
  /** The flags as typed, in argv order: for a command whose repeated flags build one thing together (`api -f/-F`). */
  protected flagsInOrder: {flag: string; input: string}[] = []
  /** This run's output: format, view, notes, what was shown (./output/command-output.ts). */
  protected readonly output = new CommandOutput({defaultFormat: this.statics.defaultFormat, displayZone: () => this.displayZone(), globals: () => this.globals, id: this.id, jsonEnabled: () => this.jsonEnabled(), view: () => this.view})

  /** This run's clients: consent, audit, trace (./client-wiring.ts). */
  protected readonly wiring = new ClientWiring({configDir: this.configDir, consent: () => this.consentContext(), globals: () => this.globals, profile: () => this.profile()})

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
      throw unknownFlagError(error, {baseFlags: (super.ctor as typeof BaseCommand).baseFlags, enableJsonFlag: this.ctor.enableJsonFlag, flags: this.ctor.flags, id: this.id}) ?? parseUsageError(error as Error, {args: this.ctor.args, id: this.id})
    }

    const {args, flags, raw} = parsed
    this.flagsInOrder = raw.flatMap((token) => (token.type === 'flag' ? [{flag: token.flag, input: token.input}] : []))
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
   * The command's work, with args and flags parsed: one call into src/services or src/runtime, returning the one
   * document (its declared type is the command's JSON shape) or nothing when it printed its own.
   */
  protected abstract execute(): Promise<unknown>

  /** Runs `execute` and prints its document in every format, inside oclif's error handling (a failure while printing reaches `catch` and has its exit code). */
  async run(): Promise<unknown> {
    const result = await this.execute()
    await this.output.print(result)
    return result
  }

  /** oclif prints a command's result under --json once the run ends; `run` has printed it already. */
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

  /** The profile named on the command line (`--profile`, `-p`), not filled in from OPSCTL_PROFILE: it is used as stored. */
  protected get namedProfile(): string | undefined {
    return this.flagsInOrder.some((f) => f.flag === 'profile') ? this.flags?.profile : undefined
  }

  protected async profile(): Promise<ResolvedProfile> {
    // oclif fills --profile from OPSCTL_PROFILE: passed on only when on the command line (a token of argv), where it
    // names a profile used as stored; from the variable, the OPSCTL_* overrides apply, and an unknown name says where it came from.
    this.resolved ??= resolveProfile(await this.profileStore(), this.namedProfile).then((r) => {
      for (const secret of profileSecrets(r.profile)) registerSecret(secret)
      return r
    })
    return this.resolved
  }

  // What a command calls most, kept here as one-line shortcuts to `this.wiring` and `this.output`.
  protected clientOptions(service?: string): Omit<ClientOptions, 'target'> {
    return this.wiring.options(service)
  }

  /** A client whose changes are asked for and audited (`ChangeClient`, src/services/change.ts). */
  protected async client(service: string, language?: string): Promise<ChangeClient> {
    return this.wiring.client(service, language)
  }

  /** This run's consent and audit, as steps of a change (src/services/change.ts). */
  protected changeSteps(): ChangeSteps {
    return this.wiring.steps()
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

  /** A paged listing (the command offers `pagingFlags(row)`): `{count, <items>, paging}`; see `streamPages` in ./paging.ts, which a command may call itself. */
  protected async streamPages<O extends PagedOperation>(client: Pick<ServiceClient, 'call'>, row: O, input: PagingInput<O>, options?: StreamOptions<ItemOf<O>>): Promise<PagedDocument<O>> {
    const {streamPages} = await import('./paging.js')
    return streamPages(this.output.pagingHost<ItemOf<O> & object>(this.id, this.flags as Record<string, unknown>), client, row, input, options)
  }

  private get statics(): typeof BaseCommand {
    return this.ctor as unknown as typeof BaseCommand
  }

  private consentContext(): ConsentContext {
    return {dryRun: this.dryRun, ownChanges: this.statics.undoesOwnChanges, profile: () => this.profile(), yes: this.globals.yes === true}
  }

  override async catch(error: Error & {oclif?: {exit?: number}}): Promise<void> {
    if (error instanceof DryRunRequest) {
      printDryRun(error, this.jsonEnabled() ? (json) => this.logJson(json) : undefined, (m) => this.note(m))
      return
    }

    const opsError = withHints(toOpsError(error, {args: this.ctor.args, id: this.id, inputFlags: this.statics.inputFlags}), await this.hintContext())
    process.exitCode = opsError.exitCode
    const {audits, changes} = this.statics
    // With argv unparsed (the error was oclif's), the profile is the default one unless --profile named another.
    const profile = async () => (!this.flags && profileTyped(this.argv) ? undefined : this.profile().catch(() => undefined))
    await this.wiring.auditUnsent(audits ?? (changes?.audited ? changes : undefined), opsError, {args: this.args ?? {}, flags: this.flags ?? {}, profile})
    writeCommandError(opsError, error, {json: this.jsonEnabled(), verbose: this.globals?.verbose === true})
  }

  override async finally(error: Error | undefined): Promise<void> {
    try {
      await this.wiring.noteForeignSandbox(error)
      // A change a command made to the profiles and did not save itself is written now, never lost.
      await saveUnsavedProfiles(this.store)
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
}

