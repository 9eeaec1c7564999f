/**
 * The flags and the view of bulk voids and refunds (`--from-file`), read when the command loads;
 * the run itself (./bulk.ts, src/runtime/bulk/) is loaded only when --from-file is given.
 */
import * as Flags from '@oclif/core/flags'

import type {View} from '../output/view.js'

export const CONCURRENCY = {default: 4, max: 16, min: 1}

export function bulkFlags(kind: 'refund' | 'void') {
  const columns = kind === 'refund' ? 'checkoutId,amount,currency,reason (amount and currency empty: a full refund)' : 'checkoutId,reason, or one checkout id per line'
  return {
    'from-file': Flags.string({
      description: `${kind === 'refund' ? 'refund' : 'void'} every row of FILE (- for standard input): CSV with a header (${columns}) or JSON lines with those fields. Planned first, confirmed once, journalled`,
      exclusive: kind === 'refund' ? ['amount', 'full', 'currency'] : [],
      helpGroup: 'BULK',
      helpValue: 'FILE',
    }),
    journal: Flags.string({
      dependsOn: ['from-file'],
      description: 'where a --from-file run journals each row (default: FILE.journal; required with --from-file -); running again with it resumes',
      helpGroup: 'BULK',
      helpValue: 'FILE',
    }),
    concurrency: Flags.integer({
      default: CONCURRENCY.default,
      description: 'rows of a --from-file run in flight at once',
      helpGroup: 'BULK',
      max: CONCURRENCY.max,
      min: CONCURRENCY.min,
    }),
  }
}

/** The refused and unknown rows in a table; every row under --json, -o json/ndjson and --query. */
export const BULK_VIEW: View = {
  columns: ['line', 'checkoutId', 'outcome', 'code', 'message'],
  fields: ['refundId', 'amount', 'currency', 'reconciled'],
  layout: {checkoutId: {kind: 'id', priority: 1}, code: {priority: 2}, line: {priority: 1}, message: {kind: 'reason', priority: 1}, outcome: {priority: 1}},
  list: 'results',
}
