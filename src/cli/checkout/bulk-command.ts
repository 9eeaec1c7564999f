/**
 * What `refund create` and `checkout void` share: the money path's steps for one checkout, and for
 * `--from-file` the consent wording, the view of the bulk document, and the run itself
 * (src/cli/checkout/bulk.ts).
 */
import type {Command} from '@oclif/core'

import type {Operation} from '../../http/operation.js'
import type {BulkKind} from '../../runtime/bulk/rows.js'

import {UsageError} from '../../errors.js'
import {type MoneyDeps} from '../../services/checkout/money-change.js'
import {BaseCommand} from '../base-command.js'
import {type View} from '../output/view.js'
import {BULK_VIEW} from './bulk-flags.js'
import {runFromFile} from './bulk.js'

interface BulkFlagValues {
  concurrency: number
  'from-file'?: string
  journal?: string
  reason?: string
  yes?: boolean
}

const ACTION: Record<BulkKind, string> = {refund: 'Refunding', void: 'Voiding'}

export abstract class BulkMoneyCommand<T extends typeof Command> extends BaseCommand<T> {
  protected abstract readonly bulkKind: BulkKind

  /** The file of a --from-file run, if this is one. */
  protected get fromFileFlag(): string | undefined {
    return (this.flags as unknown as BulkFlagValues | undefined)?.['from-file']
  }

  protected override changeAction(changes: Operation): string {
    const file = this.fromFileFlag
    return file === undefined ? super.changeAction(changes) : `${ACTION[this.bulkKind]} the rows of ${file === '-' ? 'standard input' : file}`
  }

  protected override get view(): View {
    return this.fromFileFlag === undefined ? super.view : BULK_VIEW
  }

  /** What the money path (src/services/checkout/money-change.ts) is handed for one checkout: a client that only sends, and this run's consent and audit. */
  protected async moneyPath(): Promise<MoneyDeps> {
    return {client: await this.wiring.sender('checkout'), ...this.wiring.steps()}
  }

  /** Plans, confirms and sends every row of the file; the bulk document, its closing line and exit code set. */
  protected async fromFile(file: string, checkoutId: string | undefined): Promise<Record<string, unknown>> {
    if (checkoutId !== undefined) throw new UsageError('Pass either a checkout id or --from-file, not both')
    const flags = this.flags as unknown as BulkFlagValues
    const run = await runFromFile({
      // One prompt for the run, asked by runFromFile; each request then goes without one (the production notice stays).
      money: {client: await this.wiring.sender('checkout', {dryRun: false}), ...this.wiring.steps({yes: true})},
      concurrency: flags.concurrency,
      dryRun: this.dryRun,
      file,
      journal: flags.journal,
      keepAll: this.output.documentWanted,
      kind: this.bulkKind,
      profile: await this.profile(),
      reason: flags.reason,
      yes: flags.yes === true,
    })
    this.output.closeWith(run.closing)
    process.exitCode = run.exitCode
    return run.document as unknown as Record<string, unknown>
  }
}
