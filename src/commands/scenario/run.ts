import {Args, Flags} from '@oclif/core'
import {join} from 'node:path'

import {BaseCommand} from '../../cli/base-command.js'
import {parsePairs} from '../../cli/data-input.js'
import {isInteractive} from '../../cli/prompt.js'
import {progressLine, renderReport, REPORTERS, type StepResult, summarize, summaryLine} from '../../runtime/report.js'
import {loadScenario} from '../../runtime/scenario/parse.js'
import {runScenario} from '../../runtime/scenario/run.js'

export default class ScenarioRun extends BaseCommand<typeof ScenarioRun> {
  static override args = {file: Args.string({description: 'scenario file (YAML)', required: true})}
  static override description = `Run a scenario file: opsctl command lines with expectations, in order.

Each step runs as its own opsctl process with this environment (profile, OPSCTL_* variables). A step can expect an exit code, values at dot paths of its --json output (equals, matches, exists, length) and text in stdout/stderr, and save values as variables for later steps: \${name}, or \${env:NAME|default} from the environment. The whole file is checked (unknown keys, undefined variables, malformed YAML) before any step runs. Progress goes to stderr; the report to stdout. Exits 0 when every step passed, 1 when one failed, 2 when the file is invalid.`
  static override examples = [
    '<%= config.bin %> scenario run examples/checkout-happy-path.yaml',
    '<%= config.bin %> scenario run smoke.yaml --var amount=99.99 --reporter junit \\\n  --junit-file scenario.xml',
  ]
  static override flags = {
    var: Flags.string({description: "variable k=v (repeatable), overriding the file's vars", multiple: true}),
    reporter: Flags.option({description: 'report format (default: table in a terminal, json otherwise)', options: REPORTERS})(),
    'junit-file': Flags.string({description: 'also write a JUnit XML report to this file'}),
  }

  async run(): Promise<{results: StepResult[]; summary: ReturnType<typeof summarize>}> {
    const {args, flags} = this
    const vars = Object.fromEntries(Object.entries(parsePairs(flags.var, '--var')).map(([k, v]) => [k, Array.isArray(v) ? v.at(-1)! : v]))
    const scenario = await loadScenario(args.file, vars)
    this.note(`Scenario "${scenario.name}": ${scenario.steps.length} step(s)`)
    const results = await runScenario(scenario, {
      env: process.env,
      onStep: (r) => process.stderr.write(progressLine(r) + '\n'),
      script: join(this.config.root, 'bin', 'run.js'),
    })
    const summary = summarize(results)
    if (flags['junit-file']) await this.writeOutputFile(flags['junit-file'], (await renderReport(results, 'junit', scenario.name)) + '\n')
    if (!this.jsonEnabled()) {
      const reporter = flags.reporter ?? (isInteractive() ? 'table' : 'json')
      process.stdout.write((await renderReport(results, reporter, scenario.name)) + '\n')
      if (reporter !== 'table') process.stderr.write(summaryLine(summary) + '\n')
    }

    // A failed check is a result, not a crash: the report is still printed (or returned under --json).
    if (summary.failed > 0) process.exitCode = 1

    return {results, summary}
  }
}
