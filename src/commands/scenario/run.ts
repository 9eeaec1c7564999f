import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {parsePairs} from '../../cli/data-input.js'
import {writeOutputFile} from '../../cli/output/command-output.js'
import {type View} from '../../cli/output/view.js'
import {stepProgress} from '../../cli/progress.js'
import {REPORT_VIEW} from '../../cli/views/report.js'
import {ServiceClient} from '../../http/client.js'
import {checkoutTarget, ENV, healthTarget} from '../../profiles/resolve.js'
import {notAnsweringError, unanswered} from '../../runtime/reachability.js'
import {progressLine, renderReport, reportedResult, REPORTERS, type StepResult, summarize, summaryLine} from '../../runtime/report.js'
import {loadScenario} from '../../runtime/scenario/parse.js'
import {runScenario} from '../../runtime/scenario/run.js'

export default class ScenarioRun extends BaseCommand<typeof ScenarioRun> {
  static override args = {file: Args.string({description: 'scenario file (YAML)', required: true})}
  static override description = `Run a scenario file: opsctl command lines with expectations, in order.

Each step runs in this process the way a separate opsctl process with piped input and output would: with this environment (OPSCTL_* variables, and --profile and --timeout when given; a profile named with --profile is used as stored by every step, whatever the OPSCTL_* variables say), no terminal (nothing prompts; a destructive step needs --yes), and its own output and exit code. A step runs one command line without a shell: pipes, redirections and ; are refused.

A step can expect an exit code (default 0), values at dot paths of its --json output, and text in stdout or stderr. A value is a plain value (status: CREATED) or a matcher: equals, matches, exists, length; the path $ is the whole document, so $: {length: 1} checks a top-level list. A step can save values for later steps as \${name}. Built-in variables: \${run.id} (one per run, for names that must differ from the last run's), \${uuid} (new at each use) and \${env:NAME|default}. The name of the scenario defaults to the file name.

The whole file is checked before any step runs, and every problem is reported at once with its line: unknown keys, undefined variables, shell syntax, malformed YAML, invalid patterns, a credential read with \${env:...} (a step gets credentials from its profile, never from its command line), and a step that runs "scenario run" or "sandbox start". A file over 1 MiB is refused. Each match of a pattern has 1 s. "opsctl scenario schema" prints the file format as a JSON Schema. Progress goes to stderr, the report to stdout. Exits 0 when every step passed, 1 when one failed, 2 when the file is invalid, 7 when neither base URL of the profile answers (checked once, before the first step).`
  static override examples = [
    '<%= config.bin %> scenario run examples/checkout-happy-path.yaml',
    '<%= config.bin %> scenario run smoke.yaml --var amount=99.99 --reporter junit \\\n  --junit-file scenario.xml',
  ]
  static override flags = {
    var: Flags.string({description: "variable k=v (repeatable), overriding the file's vars", multiple: true, multipleNonGreedy: true}),
    reporter: Flags.option({description: 'json or junit: print that report instead of the results list (-o chooses its format)', options: REPORTERS})(),
    'junit-file': Flags.string({description: 'also write a JUnit XML report to this file'}),
  }

  static override view = REPORT_VIEW as View

  protected async execute(): Promise<{results: StepResult[]; summary: ReturnType<typeof summarize>}> {
    const {args, flags} = this
    const vars = Object.fromEntries(Object.entries(parsePairs(flags.var, '--var')).map(([k, v]) => [k, Array.isArray(v) ? v.at(-1)! : v]))
    const scenario = await loadScenario(args.file, vars)
    await this.checkAnswering()
    this.note(`Scenario "${scenario.name}": ${scenario.steps.length} step(s)`)
    const shown = stepProgress('scenario', scenario.steps.length, progressLine, (r: StepResult) => r.outcome === 'passed')
    const results = await runScenario(scenario, {
      config: this.config,
      env: process.env,
      onStep: shown.onStep,
      // What the scenario was asked to run against applies to each step, as if set in the environment; a profile named
      // on its command line is used as stored by each step too (an empty OPSCTL_* variable counts as unset).
      stepEnv: {...(flags.profile ? {OPSCTL_PROFILE: flags.profile} : {}), ...this.storedProfileEnv(), OPSCTL_TIMEOUT: String(flags.timeout)},
    })
    shown.done()
    const summary = summarize(results)
    if (flags['junit-file']) await writeOutputFile(flags['junit-file'], (await renderReport(results, 'junit', scenario.name)) + '\n')
    if (flags.reporter === 'json' || flags.reporter === 'junit') {
      process.stdout.write((await renderReport(results, flags.reporter, scenario.name)) + '\n')
      this.output.markShown()
    }

    // The run's last line, whatever the format of the report on stdout.
    this.output.closeWith(summaryLine(summary))
    // A failed check is a result, not a crash: the report is still printed (or returned under --json).
    if (summary.failed > 0) process.exitCode = 1

    // The document, like the reports, shows no email address from a step's command line.
    return {results: results.map((r) => reportedResult(r, false)), summary}
  }

  /** Under a profile named on the command line, the OPSCTL_* overrides emptied for the steps, as this command ignores them. */
  private storedProfileEnv(): Record<string, string> {
    if (this.namedProfile === undefined) return {}
    return Object.fromEntries(Object.entries(ENV).flatMap(([key, name]) => (key === 'profile' ? [] : [[name, '']])))
  }

  /**
   * One look at the profile's base URLs before the first step: when neither answers, the run
   * stops with one line (exit 7). A profile that does not resolve yet (a scenario may add it)
   * and a dry run are not probed: the steps say what they say.
   */
  private async checkAnswering(): Promise<void> {
    if (this.dryRun) return
    const resolved = await this.profile().catch(() => undefined)
    if (!resolved) return
    const targets = [healthTarget(resolved), checkoutTarget(resolved)]
    const client = new ServiceClient({...this.clientOptions(), target: targets[0]})
    const missing = await unanswered(client.transport, targets, this.flags.timeout * 1000)
    if (missing.length === targets.length) throw notAnsweringError(missing, resolved.profile.env === 'sandbox')
  }
}
