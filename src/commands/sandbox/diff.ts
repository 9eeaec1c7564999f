import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags, requestFlags} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {tenantSandbox} from '../../cli/sandbox-tenant-target.js'
import {escapeControlChars} from '../../control-chars.js'
import {UsageError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {registerSecret} from '../../http/secrets/registry.js'
import {profileSecrets, resolveProfile} from '../../profiles/resolve.js'
import {type DiffReport, type DiffSide, skipReason} from '../../runtime/diff/probe.js'
import {diffSummary, runDiff} from '../../runtime/diff/run.js'
import {theirSide} from '../../runtime/diff/sides.js'
import {DIFF_SERVICES, diffProbes} from '../../runtime/diff/suite.js'

/** The --json document: every probe's outcome and every difference; `left` only when a clean-up failed. */
type DiffDocument = Omit<DiffReport, 'left'> & {left?: string[]}

interface DiffPlan {
  dryRun: true
  probes: {probe: string; service: string; what: string; runs: string}[]
}

export default class SandboxDiff extends BaseCommand<typeof SandboxDiff> {
  static override baseFlags = {
    ...outputFlags,
    ...requestFlags,
    yes: Flags.boolean({char: 'y', description: 'also run the probes that create and remove data (refused on a production profile)', helpGroup: 'GLOBAL'}),
  }
  static override description = `Compare the sandbox with a profile's service: the same probes against both, and every difference they show.

Each probe sends the same request to the profile's service ("theirs": the real service's sandbox, or another opsctl sandbox) and to a sandbox of our own ("ours": an embedded one started for the run, or with --sandbox-url a tenant made for the run, with a one-hour TTL, and deleted after it or on Ctrl-C or SIGTERM), and compares the status code, the answer's shape (field names, JSON types, null or absent) and the values of its statuses and error codes. Values meant to differ (ids, times, URLs, keys, amounts, messages) are not compared: see docs/sandbox-diff.md.

Without --yes only reads are sent: health reads with the profile's own session. --yes adds the probes that create and remove (a checkout, a webhook, a health event, refusals of invalid bodies) and, when the profile is an opsctl sandbox, those that pay on its hosted page or need the next day (in a tenant made for them: its clock moves, never the profile's); it is refused on a production profile (exit 2, nothing sent). What the probes made is removed at the end; what could not be is listed.

Exits 0 when nothing differs, 1 when something does.`
  static override examples = [
    '<%= config.bin %> sandbox diff --against staging',
    '<%= config.bin %> sandbox diff --against vendor-sandbox --yes --json',
    '<%= config.bin %> sandbox diff --against ci-job-1 --service checkout --yes \\\n  --sandbox-url http://127.0.0.1:4010',
  ]
  static override flags = {
    against: Flags.string({description: 'the profile whose services are compared with the sandbox', helpValue: '<profile>', required: true}),
    service: Flags.option({default: 'all', description: 'which service to probe', options: DIFF_SERVICES})(),
    'sandbox-url': Flags.string({
      helpValue: '<url>',
      description: 'compare with a tenant made for the run on the sandbox at this origin, e.g. http://127.0.0.1:4010 (default: an embedded sandbox)',
    }),
  }

  static override view: View = {
    columns: ['probe', 'where', 'ours', 'theirs'],
    layout: {ours: {kind: 'text', priority: 1}, probe: {priority: 1}, theirs: {kind: 'text', priority: 1}, where: {priority: 1}},
    list: 'differences',
  }

  static planView: View = {columns: ['probe', 'service', 'what', 'runs'], layout: {runs: {kind: 'text'}, what: {kind: 'text'}}, list: 'probes'}

  protected override get view(): View {
    return this.flags?.['dry-run'] ? SandboxDiff.planView : SandboxDiff.view
  }

  protected async execute(): Promise<DiffDocument | DiffPlan> {
    const {flags} = this
    const resolved = await resolveProfile(await this.profileStore(), flags.against)
    for (const secret of profileSecrets(resolved.profile)) registerSecret(secret)
    if (flags.yes && resolved.profile.env === 'production') {
      throw new UsageError(`sandbox diff --yes creates and deletes data; profile ${resolved.name} is production, and that is refused there; nothing was sent`)
    }

    const transport = createTransport({...this.clientOptions(), dryRun: false})
    const theirs = await theirSide(resolved, transport, this.configDir)
    const probes = diffProbes(flags.service)
    if (flags['dry-run']) return this.plan(theirs, probes)
    const sandboxUrl = flags['sandbox-url']
    const report = await runDiff({
      changes: flags.yes === true,
      configDir: this.configDir,
      note: (text) => this.note(text),
      onLeft: (left) => process.stderr.write(escapeControlChars(`Warning: the probes left behind: ${left.join('; ')}`) + '\n'),
      onProbe: (r) => r.note && this.note(`${r.outcome} ${r.probe}: ${r.note}`),
      probes,
      sandboxOrigin: sandboxUrl === undefined ? undefined : (await tenantSandbox(sandboxUrl, async () => resolved, this.configDir)).origin,
      start: async () => (await import('../../sandbox/core/server.js')).createSandbox({port: 0}),
      theirs,
      timeoutMs: (flags.timeout ?? 30) * 1000,
      transport,
    })
    this.output.closeWith(diffSummary(report))
    if (report.differences.length > 0) process.exitCode = 1
    const {differences, left, probes: results} = report
    return left.length > 0 ? {differences, left, probes: results} : {differences, probes: results}
  }

  private plan(theirs: DiffSide, probes: ReturnType<typeof diffProbes>): DiffPlan {
    // ours is always a sandbox of our own
    const sides = {ours: {...theirs, name: 'ours' as const, sandbox: {origin: ''}}, theirs}
    this.note(`Sandbox diff, dry run: ${probes.length} probes against ${theirs.label}; nothing was sent`)
    return {
      dryRun: true,
      probes: probes.map((p) => ({probe: p.name, runs: skipReason(p, sides, {changes: this.flags.yes === true}) ?? 'yes', service: p.service, what: p.what})),
    }
  }
}
