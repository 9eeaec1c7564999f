import type {FlagInput} from '@oclif/core/interfaces'

import {Command, type Interfaces} from '@oclif/core'

import type {PagedDocument, PagedOperation, StreamOptions} from './paging.js'

import {appendAudit, entryFromAttempt} from '../audit/log.js'
import {escapeControlChars} from '../control-chars.js'
import {ExitCode, InputError, OpsError, UsageError} from '../errors.js'
import {type ClientOptions, ServiceClient} from '../http/client.js'
import {closeConnections} from '../http/connections.js'
import {DryRunRequest} from '../http/dry-run.js'
import {type ItemOf, type Operation} from '../http/operation.js'
import {scrubSecrets} from '../http/redact.js'
import {registerSecret} from '../http/secrets/registry.js'
import {registerArgv, registerEnv} from '../http/secrets/sources.js'
import {guardOutputStreams} from '../http/secrets/streams.js'
import {findServiceModule} from '../http/services.js'
import {profileSecrets, type ResolvedProfile, resolveProfile, targetOf} from '../profiles/resolve.js'
import {defaultConfigDir, ProfileStore} from '../profiles/store.js'
// Every service's module, registered with the HTTP layer before a client is made.
import '../services/registry.js'
import {type ConsentContext, consentHook, describeChange, requireConsentPossible} from './consent.js'
import {writeError, writeNote} from './error-output.js'
import {type GlobalFlagValues, sendFlags} from './flags.js'
import {type HintContext, hints, withHints} from './hints.js'
import {flagNamer} from './input-words.js'
import {type Format, ListWriter, type OutputMode, renderDocument} from './output.js'
import {knownColumns, type Row, tablesOf, unknownColumns, type View} from './output/view.js'
import {parseUsageError} from './parse-error.js'
import {PATIENT_DATA_NOTICE, patientDataShown, patientTraceMask} from './patient-data.js'
import {unsentAttempt} from './unsent-attempt.js'

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
  private patientDataNoticed = false
  private resolved?: Promise<ResolvedProfile>
  private store?: Promise<ProfileStore>
  /** The document's list was already written as it arrived (`listWriter`). */
  private streamed = false
  /** The command printed its own view (a chart, a test report): the document is not printed again. */
  private shownOwnView = false
  /** The client wrote an audit line in this run. */
  private attemptAudited = false
  /** A line for stderr once the document is out (a run's "N passed, N failed, N skipped"): see `closeWith`. */
  private closingLine?: string
  /** The document `run()` returned is out (or the command showed its own view). */
  private documentPrinted = false

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
    this.checkOutputFlags()
    await this.checkSandboxRequirement()
    const {changes} = this.ctor as unknown as typeof BaseCommand
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
      if (result !== undefined && !this.streamed && !this.shownOwnView) await this.printDocument(result)
      if (this.closingLine !== undefined) process.stderr.write(this.closingLine + '\n')
      this.documentPrinted = true
      return result
    }
  }

  /** oclif prints a command's result under --json once the run ends; this class has printed it already (`printWhatRunReturns`). */
  override logJson(json: unknown): void {
    if (!this.documentPrinted) super.logJson(json)
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
    const typed = this.argv.some((a) => a.startsWith('-p') || a === '--profile' || a.startsWith('--profile='))
    this.resolved ??= resolveProfile(await this.profileStore(), typed ? this.flags?.profile : undefined).then((r) => {
      for (const secret of profileSecrets(r.profile)) registerSecret(secret)
      return r
    })
    return this.resolved
  }

  /** Options of a client of `service`: what every client has, and its patient data masked in the trace (./patient-data.ts). */
  protected clientOptions(service?: string): Omit<ClientOptions, 'target'> {
    const stderr = (text: string) => process.stderr.write(text + '\n')
    const patientData = service !== undefined && findServiceModule(service)?.patientData !== undefined
    if (patientData && this.globals.verbose && patientDataShown() && !this.patientDataNoticed) {
      this.patientDataNoticed = true
      process.stderr.write(PATIENT_DATA_NOTICE + '\n')
    }

    return {
      onAudited: async (record) => {
        this.attemptAudited = true
        const {name, profile} = await this.profile()
        await appendAudit(this.configDir, entryFromAttempt(record, name, profile.env))
      },
      beforeSend: consentHook(this.consentContext()),
      dryRun: this.dryRun,
      timeoutMs: (this.globals.timeout ?? 30) * 1000,
      trace: this.globals.verbose ? stderr : undefined,
      warn: (text) => writeNote(escapeControlChars(text)),
      traceMasked: service === undefined ? undefined : patientTraceMask(service),
    }
  }

  /** A client of a registered service (src/services/registry.ts), as the profile in use reaches it; `language` for services that take one. */
  protected async client(service: string, language?: string): Promise<ServiceClient> {
    return new ServiceClient({...this.clientOptions(service), target: targetOf(await this.profile(), service, language)})
  }

  protected get format(): Format {
    if (this.jsonEnabled()) return 'json'
    return this.globals.output ?? (this.ctor as unknown as typeof BaseCommand).defaultFormat
  }

  /** The view of this run's document; a command whose document differs by mode (smoke --dry-run) overrides it. */
  protected get view(): View {
    return (this.ctor as unknown as typeof BaseCommand).view
  }

  /**
   * True when the whole document is printed as JSON (--json, -o json, ndjson, --query): a command
   * with a view of its own (a chart, a test report) prints that only when this is false, then calls `shownOwnView`.
   */
  protected get documentWanted(): boolean {
    return this.format === 'json' || this.format === 'ndjson' || this.globals.query !== undefined
  }

  /** `line` goes to stderr after the document, whatever its format: the last thing a person reads. */
  protected closeWith(line: string): void {
    this.closingLine = line
  }

  /** The command wrote its own view on stdout; the document is not printed again. */
  protected markShown(): void {
    this.shownOwnView = true
  }

  /**
   * For a listing that arrives in pages (`events list --all`): in table, CSV and ndjson form each
   * item is written as it arrives and nothing is kept (`items` stays empty); for JSON and --query
   * the items are collected into `items`, for the document `run()` returns.
   */
  protected async listWriter<I extends object>(): Promise<{push(item: I): Promise<void>; endPage(): Promise<void>; end(): Promise<void>; items: I[]}> {
    const items: I[] = []
    if (this.format === 'json' || this.globals.query !== undefined) {
      return {
        async end() {},
        async endPage() {},
        items,
        async push(item) {
          items.push(item)
        },
      }
    }

    this.streamed = true
    const writer = new ListWriter(await this.outputMode(), this.view)
    return {end: () => writer.end(), endPage: () => writer.endPage(), items, push: (item) => writer.push(item as Row)}
  }

  /**
   * A paged listing (the command offers `pagingFlags(row)`): the pages from `--paging-token` on,
   * one page, `--limit` items or `--all`, streamed into the view; returns `{count, <items>, paging}`.
   */
  protected async streamPages<O extends PagedOperation>(
    client: Pick<ServiceClient, 'call'>,
    row: O,
    input: Parameters<typeof import('./paging.js').streamPages<O>>[3],
    options?: StreamOptions<ItemOf<O>>,
  ): Promise<PagedDocument<O>> {
    const {streamPages} = await import('./paging.js')
    const host = {
      commandName: (this.id ?? '').replaceAll(':', ' '),
      flags: this.flags as Record<string, unknown>,
      listWriter: () => this.listWriter<ItemOf<O> & object>(),
      note: (message: string) => this.note(message),
      viewList: this.view.list,
    }
    return streamPages(host, client, row, input, options)
  }

  /** For a command with a view of its own made of several parts (users inspect): one part, in the output mode asked for. */
  protected async renderPart(part: unknown, view: View): Promise<void> {
    await renderDocument(part, view, await this.outputMode())
  }

  /** The zone of times in tables and CSV when the view names none; the health commands use the user's. */
  protected async displayZone(): Promise<string | undefined> {
    return undefined
  }

  private async outputMode(): Promise<OutputMode> {
    const {columns, headers, truncate, utc} = this.globals
    return {
      columns: columns && columns.length > 0 ? columns : undefined,
      format: this.format,
      terminal: process.stdout.isTTY === true,
      truncate: truncate !== false,
      headers: headers !== false,
      width: process.stdout.columns || 80,
      zone: utc ? undefined : (this.view.zone ?? (await this.displayZone())),
    }
  }

  private async printDocument(document: unknown): Promise<void> {
    const {query} = this.globals
    if (this.view.quiet && !this.documentWanted) return
    if (query === undefined) {
      await renderDocument(document, this.view, await this.outputMode())
      return
    }

    const {applyQuery, emptyResultWarning} = await import('./output/query.js')
    const queried = await applyQuery(document, query)
    const warning = emptyResultWarning(document, query, queried)
    if (warning) writeNote(escapeControlChars(warning))
    const mode = await this.outputMode()
    this.checkColumnsAgainst(queried)
    await renderDocument(queried, {}, mode)
  }

  /** Conflicting formats and unknown columns are refused while reading argv: exit 2, nothing sent. */
  private checkOutputFlags(): void {
    const {columns, output, query} = this.globals
    if (this.jsonEnabled() && output !== undefined && output !== 'json') {
      throw new UsageError(`--json and --output ${output} ask for two formats; use one of them`, [hints.help(this.id)])
    }

    const tables = tablesOf(this.view)
    if (output === 'csv' && query === undefined && tables) {
      const lists = tables.filter((t) => t !== 'its fields')
      throw new UsageError(`-o csv holds one table, and this document has ${tables.length} (${tables.join(', ')})`, [
        `Pick one with --query ${lists.length === 1 ? lists[0] : `NAME (${lists.join(', ')})`} -o csv, or take the whole document with --json`,
      ])
    }

    if (!columns || columns.length === 0 || query !== undefined) return
    const known = knownColumns(this.view)
    if (known.length === 0) return
    const unknown = unknownColumns(columns, known)
    if (unknown.length > 0) throw this.unknownColumnsError(unknown, known)
  }

  /** After --query the document has a new shape: its columns are those of its rows. */
  private checkColumnsAgainst(document: unknown): void {
    const {columns} = this.globals
    if (!columns || columns.length === 0) return
    const rows = Array.isArray(document) ? document : document && typeof document === 'object' ? [document] : []
    const known = [...new Set(rows.slice(0, 50).flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : [])))]
    const unknown = unknownColumns(
      columns.map((c) => c.split('.')[0]),
      known,
    )
    if (rows.length > 0 && unknown.length > 0) throw this.unknownColumnsError(unknown, known)
  }

  private unknownColumnsError(unknown: string[], known: string[]): UsageError {
    const names = unknown.map((c) => `"${c}"`).join(', ')
    return new UsageError(`--columns: unknown ${unknown.length === 1 ? 'column' : 'columns'} ${names}; available: ${known.join(', ')}`)
  }

  /** A file the user asked for (a JUnit report), scrubbed of secrets like stdout. */
  protected async writeOutputFile(path: string, text: string): Promise<void> {
    const {writeFile} = await import('node:fs/promises')
    await writeFile(path, scrubSecrets(text))
  }

  /** Chatter for people, on stderr; silent under --json. It may quote a service (a redirect URL, an email): control characters escaped. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) writeNote(escapeControlChars(message, {keepNewlines: true}))
  }

  private consentContext(): ConsentContext {
    const {undoesOwnChanges} = this.ctor as unknown as typeof BaseCommand
    return {dryRun: this.dryRun, ownChanges: undoesOwnChanges, profile: () => this.profile(), yes: this.globals.yes === true}
  }

  private async checkSandboxRequirement(): Promise<void> {
    const requirement = (this.ctor as unknown as typeof BaseCommand).requiresSandbox
    if (!requirement || (requirement.flag && !(this.flags as Record<string, unknown>)[requirement.flag])) return
    const {name, profile} = await this.profile()
    if (profile.env === 'sandbox') return
    throw new UsageError(
      `${requirement.why}; profile ${name} is ${profile.env}, and this works only against a sandbox; nothing was sent`,
      requirement.suggestions,
    )
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
    await this.auditUnsentAttempt(opsError)
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

  /** An audited change that ended before it was sent is recorded too (not under --dry-run: nothing was attempted). */
  private async auditUnsentAttempt(error: OpsError): Promise<void> {
    const {audits, changes} = this.ctor as unknown as typeof BaseCommand
    const operation = audits ?? (changes?.audited ? changes : undefined)
    if (!operation || this.attemptAudited || this.globals?.['dry-run']) return
    try {
      // With argv unparsed (the error was oclif's), the profile is the default one unless --profile named another.
      const named = !this.flags && this.argv.some((a) => a === '--profile' || a.startsWith('--profile=') || a.startsWith('-p'))
      const resolved = named ? undefined : await this.profile().catch(() => undefined)
      const record = unsentAttempt(operation, error, this.args ?? {}, this.flags ?? {})
      await appendAudit(this.configDir, entryFromAttempt(record, resolved?.name ?? this.flags?.profile ?? 'unknown', resolved?.profile.env ?? 'unknown'))
    } catch (auditError) {
      process.stderr.write(`Warning: could not write the audit log: ${(auditError as Error).message}\n`)
    }
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
    if (error instanceof InputError) return error.worded(flagNamer((this.ctor as unknown as typeof BaseCommand).inputFlags))
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
