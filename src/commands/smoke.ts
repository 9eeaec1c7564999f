import * as Flags from '@oclif/core/flags'

import type {ServiceTarget} from '../http/services.js'

import {AUDIT_RUN_ENV} from '../audit/log.js'
import {BaseCommand} from '../cli/base-command.js'
import {writeOutputFile} from '../cli/output/command-output.js'
import {type View} from '../cli/output/view.js'
import {stepProgress} from '../cli/progress.js'
import {REPORT_VIEW} from '../cli/views/report.js'
import {type ClientOptions, ServiceClient} from '../http/client.js'
import {checkoutTarget, healthTarget} from '../profiles/resolve.js'
import {notAnsweringError, unanswered} from '../runtime/reachability.js'
import {progressLine, renderReport, REPORTERS, type StepResult, summarize, summaryLine} from '../runtime/report.js'
import {localSandbox, type SandboxControlTarget} from '../runtime/sandbox-control.js'
import {checkoutSteps} from '../runtime/smoke/checkout-steps.js'
import {healthSteps} from '../runtime/smoke/health-steps.js'
import {type PlannedStep, planSmoke} from '../runtime/smoke/plan.js'
import {EventReceiver} from '../runtime/smoke/receiver.js'
import {runSteps, type SmokeContext, type SmokeStep} from '../runtime/smoke/runner.js'
import {ChangeClient, NO_STEPS} from '../services/change.js'
import {SANDBOX_KEYS, sandboxBaseUrls} from '../services/sandbox-defaults.js'

/** What `smoke --dry-run` returns (the --json document). */
interface SmokePlan {
  dryRun: true
  target: string
  steps: PlannedStep[]
}

/** A sandbox a dry run does not start has no port yet. */
const DRY_RUN_ORIGIN = 'http://127.0.0.1:{port}'

export default class Smoke extends BaseCommand<typeof Smoke> {
  static override undoesOwnChanges = true
  static override description = `Check that both services work, end to end: every operation of both specs, each answer checked.

Against a profile it only does what it can undo: it creates its own events and plan entries and deletes them, and changes webhooks and the page customization only to put back what was there. What it cannot undo stays: its own throwaway user (the API has no user delete) and its checkouts (marked in the audit log). Steps that need a buyer or the clock (pay, webhook delivery, void, next-day refund) run only on a sandbox and are reported as skipped elsewhere. The next-day refund moves the clock of a tenant it makes for itself and deletes at the end (it needs the sandbox's control token), so the clock of the sandbox or tenant in use never moves. --sandbox starts an embedded sandbox on a free loopback port for the run (nothing else is touched) and runs every step.

Progress goes to stderr as steps finish; the report goes to stdout, ending with "N passed, N failed, N skipped". Exits 0 when nothing failed, 1 otherwise. Against a profile it first looks once at each base URL: when one does not answer, it stops with one line (exit 7) before any step.

--dry-run lists each step and the request it is about, and sends nothing: no sandbox is started and no step runs.`
  static override examples = [
    '<%= config.bin %> smoke --sandbox',
    '<%= config.bin %> smoke --sandbox --reporter junit --junit-file smoke.xml',
    '<%= config.bin %> smoke --profile staging --service checkout --bail',
    '<%= config.bin %> smoke --sandbox --dry-run',
  ]
  static override flags = {
    service: Flags.option({default: 'all', description: 'which service to check', options: ['health', 'checkout', 'all'] as const})(),
    sandbox: Flags.boolean({description: 'run against an embedded sandbox started for this run on a free loopback port'}),
    reporter: Flags.option({description: 'json or junit: print that report instead of the results list (-o chooses its format)', options: REPORTERS})(),
    'junit-file': Flags.string({description: 'also write a JUnit XML report to this file'}),
    bail: Flags.boolean({description: 'stop at the first failed step (the rest are reported as skipped)'}),
    group: Flags.string({default: 'demo-clinic', description: 'health group (id or name) whose medications the health steps use'}),
  }

  /** The document is the plan under --dry-run (one row per step), else the results (shown by a reporter). */
  static override view = REPORT_VIEW as View
  /** Under --dry-run the document is the plan: one row a step and the request it is about. */
  static planView: View = {columns: ['suite', 'name', 'operation', 'request.method', 'request.url', 'runs'], list: 'steps'}

  protected override get view(): View {
    return this.flags?.['dry-run'] ? Smoke.planView : Smoke.view
  }

  protected async execute(): Promise<SmokePlan | {results: StepResult[]; summary: ReturnType<typeof summarize>}> {
    const {flags} = this
    if (flags['dry-run']) return this.plan()
    const sandbox = flags.sandbox ? await (await import('../sandbox/core/server.js')).createSandbox({port: 0}) : undefined
    let receiver: EventReceiver | undefined
    const runBefore = process.env[AUDIT_RUN_ENV]
    try {
      const targets = sandbox ? this.sandboxTargets(sandbox) : await this.profileTargets()
      if (targets.sandbox && flags.service !== 'health') {
        receiver = new EventReceiver()
        await receiver.start()
      }

      // In-process sandbox runs leave no trace in the user's audit log; runs against a profile are real changes, and logged,
      // marked as smoke's (AuditEntry.run) so that checkout list leaves smoke's checkouts out.
      if (!sandbox) process.env[AUDIT_RUN_ENV] ??= 'smoke'
      const options: Omit<ClientOptions, 'target'> = this.clientOptions()
      const healthOptions = {...options, traceMasked: this.clientOptions('health').traceMasked}
      const changeSteps = sandbox ? {...this.changeSteps(), audit: NO_STEPS.audit} : this.changeSteps()
      const ctx: SmokeContext = {
        checkout: new ChangeClient({...options, target: targets.checkout}, changeSteps),
        cleanups: [],
        clientFor: (target) => new ServiceClient({...options, target}),
        health: new ChangeClient({...healthOptions, target: targets.health}, changeSteps),
        sandbox: targets.sandbox,
        values: {},
        withSession(session) {
          ctx.health = new ChangeClient({...healthOptions, target: {...targets.health, session}}, changeSteps)
        },
      }
      // Against a profile, one look first: a stopped sandbox is one line (exit 7), not every step failing in turn.
      if (!sandbox) await this.checkAnswering(ctx.health, [targets.health, targets.checkout], targets.sandbox !== undefined)
      const steps = this.steps(receiver)
      this.note(`Smoke: ${steps.length} steps against ${targets.label}`)
      const shown = stepProgress('smoke', steps.length, progressLine, (r: StepResult) => r.outcome === 'passed')
      const results = await runSteps(steps, ctx, {bail: flags.bail, onStep: shown.onStep})
      shown.done()
      return await this.report(results)
    } finally {
      if (runBefore === undefined) delete process.env[AUDIT_RUN_ENV]
      await receiver?.stop()
      await sandbox?.close()
    }
  }

  private async checkAnswering(client: ServiceClient, targets: ServiceTarget[], sandbox: boolean): Promise<void> {
    const asked = targets.filter((t) => this.flags.service === 'all' || this.flags.service === t.service)
    const missing = await unanswered(client.transport, asked, (this.flags.timeout ?? 30) * 1000)
    if (missing.length > 0) throw notAnsweringError(missing, sandbox)
  }

  /** `--dry-run`: the steps and their requests, from the declarations alone; no sandbox, no client, nothing sent. */
  private async plan(): Promise<SmokePlan> {
    const targets = this.flags.sandbox ? this.sandboxTargets({origin: DRY_RUN_ORIGIN}) : await this.profileTargets()
    const label = this.flags.sandbox ? 'an embedded sandbox (not started: --dry-run)' : targets.label
    // a dry run's embedded sandbox would be ours, its token known
    const control = this.flags.sandbox || Boolean(targets.sandbox?.token)
    const steps = planSmoke(this.steps(undefined), {...targets, control, sandboxOrigin: targets.sandbox?.origin})
    this.note(`Smoke, dry run: ${steps.length} steps against ${label}; nothing was sent`)
    return {dryRun: true, target: label, steps}
  }

  private steps(receiver: EventReceiver | undefined): SmokeStep[] {
    return [
      ...(this.flags.service === 'checkout' ? [] : healthSteps({group: this.flags.group})),
      ...(this.flags.service === 'health' ? [] : checkoutSteps(receiver)),
    ]
  }

  private async profileTargets(): Promise<{checkout: ServiceTarget; health: ServiceTarget; label: string; sandbox?: SandboxControlTarget}> {
    const resolved = await this.profile()
    const health = {...healthTarget(resolved), session: undefined}
    const local = resolved.profile.env === 'sandbox' ? await localSandbox(resolved.profile.health.baseUrl, this.configDir) : undefined
    return {checkout: checkoutTarget(resolved), health, label: `profile ${resolved.name} (${resolved.profile.env})`, sandbox: local}
  }

  private async report(results: StepResult[]): Promise<{results: StepResult[]; summary: ReturnType<typeof summarize>}> {
    const summary = summarize(results)
    if (this.flags['junit-file']) await writeOutputFile(this.flags['junit-file'], (await renderReport(results, 'junit', 'opsctl smoke')) + '\n')
    const {reporter} = this.flags
    if (reporter === 'json' || reporter === 'junit') {
      process.stdout.write((await renderReport(results, reporter, 'opsctl smoke')) + '\n')
      this.output.markShown()
    }

    // The run's last line, whatever the format of the report on stdout.
    this.output.closeWith(summaryLine(summary))
    // A failed check is a result, not a crash: the report is still printed (or returned under --json).
    if (summary.failed > 0) process.exitCode = 1
    return {results, summary}
  }

  private sandboxTargets(sandbox: SandboxControlTarget): {checkout: ServiceTarget; health: ServiceTarget; label: string; sandbox: SandboxControlTarget} {
    const {origin} = sandbox
    const urls = sandboxBaseUrls(origin)
    return {
      checkout: {baseUrl: urls.checkout, profileName: 'embedded sandbox', service: 'checkout', ...SANDBOX_KEYS},
      health: {baseUrl: urls.health, profileName: 'embedded sandbox', service: 'health'},
      label: `an embedded sandbox at ${origin}`,
      sandbox: {origin, token: sandbox.token},
    }
  }
}
