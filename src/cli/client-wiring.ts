/**
 * What a command's clients are made of: the --verbose trace with patient data masked
 * (./patient-data.ts), --dry-run and --timeout; and the steps of a change (src/services/change.ts),
 * built here as values: consent (./consent.ts) and the audit log (and Ctrl-C before an answer:
 * ./interrupted-attempt.ts; an attempt that ended before sending: ./unsent-attempt.ts). A small
 * object the base command makes once per run; the command asks it for clients and steps.
 */
import type {GlobalFlagValues} from './flags.js'

import {appendAudit, auditPath, checkAuditWritable, entryFromAttempt} from '../audit/log.js'
import {escapeControlChars} from '../control-chars.js'
import {MIB, type OpsError} from '../errors.js'
import {type ClientOptions, ServiceClient} from '../http/client.js'
import {type Operation} from '../http/operation.js'
import {findServiceModule} from '../http/services.js'
import {UnwritableFileError} from '../profiles/private-files.js'
import {type ResolvedProfile, targetOf} from '../profiles/resolve.js'
import {type AttemptRecord, type AuditSink, ChangeClient, type ChangeSteps} from '../services/change.js'
import {type ConsentContext, consentOf} from './consent.js'
import {writeNote} from './error-output.js'
import {foreignSandboxNote, showsForeignSandboxNote} from './foreign-sandbox.js'
import {auditIfInterrupted} from './interrupted-attempt.js'
import {PATIENT_DATA_NOTICE, patientDataShown, patientTraceMask} from './patient-data.js'
import {unsentAttempt} from './unsent-attempt.js'

export interface WiringSource {
  configDir: string
  consent(): ConsentContext
  globals(): GlobalFlagValues
  profile(): Promise<ResolvedProfile>
}

export class ClientWiring {
  /** The client wrote an audit line in this run. */
  private audited = false
  private patientDataNoticed = false
  /** Checked with the first client: the note when its sandbox was started from another config folder. */
  private foreignSandbox?: Promise<string | undefined>

  constructor(private readonly source: WiringSource) {}

  /** The consent of this run, asked once per change (one production notice per service). */
  private consent?: ReturnType<typeof consentOf>

  /**
   * A client of a registered service (src/services/registry.ts), as the profile in use reaches it
   * (`language` for services that take one), its changes asked for and audited (`ChangeClient`).
   */
  async client(service: string, language?: string): Promise<ChangeClient> {
    const target = await this.target(service, language)
    return new ChangeClient({...this.options(service), target}, this.steps())
  }

  /** A client that only sends, for a caller that runs the steps of a change itself (the money pipeline). */
  async sender(service: string, options: Partial<Omit<ClientOptions, 'target'>> = {}): Promise<ServiceClient> {
    return new ServiceClient({...this.options(service), ...options, target: await this.target(service)})
  }

  /** The steps of a change in this run: consent (./consent.ts; `yes` when it was given already) and the audit log. */
  steps(consent: {yes?: boolean} = {}): ChangeSteps {
    if (consent.yes) return {audit: this.audit(), consent: consentOf({...this.source.consent(), dryRun: false, yes: true})}
    this.consent ??= consentOf(this.source.consent())
    return {audit: this.audit(), consent: this.consent}
  }

  private async target(service: string, language?: string) {
    const resolved = await this.source.profile()
    const target = targetOf(resolved, service, language)
    this.foreignSandbox ??= foreignSandboxNote(resolved, target.baseUrl, this.source.configDir).catch(() => undefined)
    return target
  }

  /** The audit log as a step: a line per attempt (none under --dry-run: nothing was attempted), Ctrl-C before an answer recorded `unknown`. */
  private audit(): AuditSink {
    const record = async (attempt: AttemptRecord) => {
      if (this.source.globals()?.['dry-run']) return
      this.audited = true
      const {name, profile} = await this.source.profile()
      // the audit log was checked before sending (`ready`): a line it cannot take after all is a warning, never a changed outcome
      await appendAudit(this.source.configDir, entryFromAttempt(attempt, name, profile.env)).catch((error: unknown) => {
        writeNote(`Warning: could not write the audit log: ${escapeControlChars((error as Error).message)}`)
      })
    }

    const {configDir} = this.source
    return {
      // an audited change is sent only when its line can be written (a symbolic link, a folder or no permission there: exit 2)
      ready: async () => {
        if (this.source.globals()?.['dry-run']) return
        await checkAuditWritable(configDir).catch((error: unknown) => {
          throw error instanceof UnwritableFileError ? new UnwritableFileError(error.path, `${error.reason}; nothing was sent`) : error
        })
      },
      record,
      sending: (attempt) => auditIfInterrupted(() => record({...attempt, outcome: 'unknown', message: 'interrupted (Ctrl-C) before the answer'}), writeNote),
    }
  }

  /** At the end of a run: one line when a client reached a sandbox another config folder started (./foreign-sandbox.ts). */
  async noteForeignSandbox(error: Error | undefined): Promise<void> {
    if (!this.foreignSandbox || !showsForeignSandboxNote(error, this.source.globals()?.['dry-run'] === true)) return
    const note = await this.foreignSandbox
    if (note) writeNote(note)
  }

  /** Options of a client of `service`: what every client has, and its patient data masked in the trace. */
  options(service?: string): Omit<ClientOptions, 'target'> {
    const globals = this.source.globals()
    const stderr = (text: string) => process.stderr.write(text + '\n')
    const patientData = service !== undefined && findServiceModule(service)?.patientData !== undefined
    if (patientData && globals.verbose && patientDataShown() && !this.patientDataNoticed) {
      this.patientDataNoticed = true
      process.stderr.write(PATIENT_DATA_NOTICE + '\n')
    }

    return {
      dryRun: globals['dry-run'] === true,
      timeoutMs: (globals.timeout ?? 30) * 1000,
      maxBodyBytes: globals['max-body'] === undefined ? undefined : globals['max-body'] * MIB,
      trace: globals.verbose ? stderr : undefined,
      traceMasked: service === undefined ? undefined : patientTraceMask(service),
    }
  }

  /**
   * An audited change that ended before it was sent is recorded too (not under --dry-run: nothing
   * was attempted). `profile` reads the profile in use, or none when argv named one that was never read.
   */
  async auditUnsent(
    operation: Operation | undefined,
    error: OpsError,
    typed: {args: Record<string, unknown>; flags: Record<string, unknown>; profile: () => Promise<ResolvedProfile | undefined>},
  ): Promise<void> {
    if (!operation || this.audited || this.source.globals()?.['dry-run']) return
    // the audit log itself is what could not be written: the error says so, once
    if (error instanceof UnwritableFileError && error.path === auditPath(this.source.configDir)) return
    try {
      const resolved = await typed.profile()
      const record = unsentAttempt(operation, error, typed.args, typed.flags)
      const profileName = resolved?.name ?? (typed.flags.profile as string | undefined) ?? 'unknown'
      await appendAudit(this.source.configDir, entryFromAttempt(record, profileName, resolved?.profile.env ?? 'unknown'))
    } catch (auditError) {
      process.stderr.write(`Warning: could not write the audit log: ${(auditError as Error).message}\n`)
    }
  }
}
