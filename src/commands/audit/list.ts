import {Flags} from '@oclif/core'

import {type AuditEntry, auditPath, readAudit} from '../../audit/log.js'
import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags} from '../../cli/flags.js'

export default class AuditList extends BaseCommand<typeof AuditList> {
  static override baseFlags = outputFlags
  static override description = `Show the local audit log of money and configuration changes.

Every attempt at a void, refund, webhook change or customization change made from this machine is recorded in <config dir>/audit.jsonl (mode 0600): time, profile, operation, ids, amount, outcome and request id. It never holds keys, sessions or card data.`
  static override examples = [
    '<%= config.bin %> audit list',
    '<%= config.bin %> audit list --checkout chk_123 --json',
    '<%= config.bin %> audit list --operation refundCheckout --limit 20',
  ]
  static override flags = {
    limit: Flags.integer({description: 'show only the newest N entries', min: 1}),
    operation: Flags.string({description: 'only this operation id (e.g. voidCheckout, refundCheckout)'}),
    checkout: Flags.string({description: 'only entries about this checkout id'}),
    outcome: Flags.string({description: 'only this outcome (applied, refused, failed, unknown, not sent, not applied)'}),
  }

  async run(): Promise<{entries: AuditEntry[]; path: string}> {
    const {flags} = this
    const {entries, skipped} = await readAudit(this.configDir)
    let selected = entries.filter(
      (e) =>
        (!flags.operation || e.operation === flags.operation) &&
        (!flags.checkout || e.checkoutId === flags.checkout) &&
        (!flags.outcome || e.outcome === flags.outcome),
    )
    if (flags.limit) selected = selected.slice(-flags.limit)
    if (skipped > 0) this.note(`Skipped ${skipped} unreadable line(s) in ${auditPath(this.configDir)}`)
    await this.print(
      selected.map((e) => ({...e, amount: e.amount ? `${e.amount.value} ${e.amount.currency ?? ''}`.trim() : ''})),
      ['time', 'profile', 'operation', 'checkoutId', 'amount', 'outcome', 'status', 'requestId'],
    )
    return {entries: selected, path: auditPath(this.configDir)}
  }
}
