import * as Flags from '@oclif/core/flags'

import {createdCheckouts, newestCreated} from '../../audit/history.js'
import {auditPath} from '../../audit/log.js'
import {damagedWarning, OUT_OF_ORDER_MARGIN_MS, readAudit} from '../../audit/read.js'
import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE, CREATED_CHECKOUT_COLUMNS, SEEDED_CHECKOUT_COLUMNS} from '../../cli/checkout/columns.js'
import {writeNote} from '../../cli/error-output.js'
import {MAX_LIMIT} from '../../cli/flags.js'
import {hints} from '../../cli/hints.js'
import {type View} from '../../cli/output/view.js'
import {escapeControlChars} from '../../control-chars.js'
import {OpsError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {withServiceStates} from '../../runtime/checkout/live-states.js'
import {localSandbox, sandboxControl} from '../../runtime/sandbox-control.js'

export default class CheckoutList extends BaseCommand<typeof CheckoutList> {
  static override description = `List the checkouts created from this machine, newest first, each with its state as the service reports it now.

The checkout service has no endpoint that lists checkouts, so the list comes from the audit log (<config dir>/audit.jsonl; see opsctl audit list): every checkout created with the profile in use. Then each checkout shown is read from the service (a few at a time; --limit reads fewer): its state (paid, declined, expired, cancelled, pending, voided, refunded <amount>) and when it began, and its creation time, on the service's clock (source: service). Beside it, the last void or refund attempted on it from here and how that ended, on this machine's clock. --no-refresh reads nothing: the state is then what the changes applied from here tell (created, voided, refunded <amount>), with this machine's times (source: local); so is a checkout the service no longer knows. Every format has the same fields. Checkouts created by opsctl smoke or a scenario run's steps are left out unless --include-runs. Checkouts created elsewhere (another machine, the service's dashboard) are not in it. With --sandbox-seeded it lists instead the paid checkouts of a sandbox started with --seed, asked of the sandbox, with what the rules allow on each now (void or refund).`
  static override examples = [
    '<%= config.bin %> checkout list',
    '<%= config.bin %> checkout list --limit 5 --json',
    '<%= config.bin %> checkout list --no-refresh -o csv',
    '<%= config.bin %> checkout list --sandbox-seeded',
  ]
  static override flags = {
    'include-runs': Flags.boolean({description: 'also the checkouts created by smoke and scenario runs (left out by default)'}),
    limit: Flags.integer({description: `show only the newest N checkouts, up to ${MAX_LIMIT} (and read only those from the service)`, max: MAX_LIMIT, min: 1}),
    refresh: Flags.boolean({
      allowNo: true,
      default: true,
      description: "read each checkout's state from the service (--no-refresh: the local view, nothing sent)",
    }),
    'sandbox-seeded': Flags.boolean({
      description: "list the sandbox's seeded paid checkouts instead (sandbox start --seed)",
      exclusive: ['limit', 'include-runs', 'no-refresh'],
    }),
  }
  static override view: View = {
    columns: CREATED_CHECKOUT_COLUMNS,
    layout: {
      amount: {priority: 1},
      checkoutId: {kind: 'id', priority: 1},
      createdAt: {priority: 3},
      currency: {priority: 3},
      lastAttempt: {kind: 'text', priority: 2},
      lastAttemptAt: {priority: 4},
      reference: {kind: 'text', priority: 4},
      source: {priority: 4},
      state: {priority: 1},
      stateAt: {priority: 2},
    },
    list: 'checkouts',
    zone: CHECKOUT_ZONE,
  }
  static readonly seededView: View = {
    columns: SEEDED_CHECKOUT_COLUMNS,
    layout: {
      amount: {priority: 1},
      checkoutId: {kind: 'id', priority: 1},
      currency: {priority: 3},
      paidAt: {priority: 1},
      paymentStatus: {priority: 2},
      possible: {kind: 'text', priority: 2},
      reference: {kind: 'text', priority: 2},
    },
    list: 'checkouts',
    zone: CHECKOUT_ZONE,
  }
  static override requiresSandbox = {flag: 'sandbox-seeded', why: 'checkout list --sandbox-seeded asks a local sandbox for its demo data'}

  protected async execute(): Promise<{checkouts: unknown[]}> {
    if (this.flags['sandbox-seeded']) return this.seeded()
    const {name} = await this.profile()
    const includeRuns = this.flags['include-runs']
    // With --limit, read from the newest end only as far back as the newest N checkouts created.
    const enough = this.flags.limit ? newestCreated(this.flags.limit, OUT_OF_ORDER_MARGIN_MS, name, {includeRuns}) : undefined
    const {damaged, entries} = await readAudit(this.configDir, {enough})
    const warning = damagedWarning(auditPath(this.configDir), damaged)
    // Said even under --json: the list may miss what those lines held.
    if (warning) writeNote(warning)
    let checkouts = createdCheckouts(entries, name, {includeRuns})
    if (this.flags.limit) checkouts = checkouts.slice(0, this.flags.limit)
    if (checkouts.length === 0) {
      // The runs' own checkouts are left out, not absent: say how many and how to see them.
      const runs = includeRuns ? 0 : createdCheckouts(entries, name, {includeRuns: true}).length
      const found = runs > 0 ? `No checkouts created from this machine with profile ${name} but by smoke or scenario runs (${runs}, left out).\n  ${hints.includeRuns(name)}` : `No checkouts created from this machine with profile ${name} yet.`
      this.note(`${found}\n  ${hints.checkoutCreate}\n  ${hints.checkoutListSeeded}`)
      return {checkouts}
    }

    if (!this.flags.refresh) return {checkouts}
    const live = await withServiceStates(await this.client('checkout'), checkouts).catch((error: unknown) => {
      if (error instanceof OpsError) error.suggestions.push(hints.checkoutListLocal)
      throw error
    })
    if (live.missing.length > 0) {
      process.stderr.write(
        escapeControlChars(
          `Warning: the service does not know ${live.missing.join(', ')} (404): shown as this machine's log tells (source local)`,
        ) + '\n',
      )
    }

    return {checkouts: live.checkouts}
  }

  protected override get view(): View {
    return this.flags['sandbox-seeded'] ? CheckoutList.seededView : CheckoutList.view
  }

  private async seeded(): Promise<{checkouts: unknown[]}> {
    const sandbox = await localSandbox((await this.profile()).profile.health.baseUrl, this.configDir)
    const transport = createTransport(this.clientOptions())
    const {checkouts} = (await sandboxControl(transport, sandbox, 'GET', 'checkout/seeded')) as {checkouts: unknown[]}
    if (checkouts.length === 0) {
      this.note(
        sandbox.tenant
          ? `Tenant ${sandbox.tenant} has no seeded checkouts.\n  ${hints.tenantSeed}`
          : `This sandbox has no seeded checkouts.\n  ${hints.sandboxSeed}`,
      )
    }

    return {checkouts}
  }
}
