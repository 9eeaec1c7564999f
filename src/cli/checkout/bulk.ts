/**
 * The CLI side of bulk voids and refunds (`--from-file`): the one confirmation, the
 * progress bar and the words around the plan (the flags and the view: ./bulk-flags.ts). The run
 * itself is src/runtime/bulk/.
 */
import {escapeControlChars} from '../../control-chars.js'
import {DeclinedError, UsageError} from '../../errors.js'
import {type ResolvedProfile} from '../../profiles/resolve.js'
import {type BulkKind} from '../../runtime/bulk/rows.js'
import {type BulkDocument, type PlanDocument, type PlanSummary, type RowResult, runBulk, type Total} from '../../runtime/bulk/run.js'
import {type MoneyDeps} from '../../services/checkout/money-change.js'
import {UNREADABLE_PRECHECK} from '../../services/checkout/money-errors.js'
import {writeNote} from '../error-output.js'
import {idProblem} from '../input-text.js'
import {progress} from '../progress.js'
import {askConfirm, askTypeBack} from '../prompt.js'

const noun = (kind: BulkKind, n: number) => `${n} ${kind === 'refund' ? (n === 1 ? 'refund' : 'refunds') : n === 1 ? 'void' : 'voids'}`
const totalsText = (totals: Total[]) => totals.map((t) => `${t.amount} ${t.currency}`).join(' + ') || 'nothing'

/** "45 of 50 rows will be sent (2250.00 PHP); 5 refused; 3 already applied (skipped)". */
export function planLine(plan: PlanSummary): string {
  const parts = [`${plan.toSend + plan.toReconcile} of ${plan.rows} rows to send (${totalsText(plan.totals)})`]
  if (plan.toReconcile > 0) parts.push(`${plan.toReconcile} of them read back first (an earlier run stopped before their outcome)`)
  if (plan.refused > 0) parts.push(`${plan.refused} refused, not sent`)
  if (plan.skipped > 0) parts.push(`${plan.skipped} already applied (skipped)`)
  return `Plan: ${parts.join('; ')}`
}

/** The refused rows as the plan lists them on stderr (text from the file escaped), the first `max`. */
export function refusedLines(refused: RowResult[], max = 20): string[] {
  const lines = refused.slice(0, max).map((r) => `  line ${r.line}${r.checkoutId ? ` ${escapeControlChars(r.checkoutId)}` : ''}: ${escapeControlChars(r.message ?? r.code ?? 'refused')}`)
  if (refused.length > max) lines.push(`  ... and ${refused.length - max} more (in the result)`)
  return lines
}

interface BulkRun {
  kind: BulkKind
  file: string
  journal?: string
  concurrency: number
  reason?: string
  dryRun: boolean
  yes: boolean
  /** The whole document is printed (--json, ndjson, --query): every row's result is kept. */
  keepAll: boolean
  profile: ResolvedProfile
  /** The money path's client and steps; consent was given once, for the run (each row has only the production notice). */
  money: MoneyDeps
}

/** The one confirmation of a bulk run: the count and totals; on production the totals typed back. */
async function confirmOnce(kind: BulkKind, plan: PlanSummary, refused: RowResult[], run: BulkRun): Promise<void> {
  writeNote(planLine(plan))
  if (run.yes) return
  for (const line of refusedLines(refused)) writeNote(line)
  const count = plan.toSend + plan.toReconcile
  const what = `${kind === 'refund' ? 'Refund' : 'Void'} ${count} ${count === 1 ? 'checkout' : 'checkouts'}, ${totalsText(plan.totals)} in total`
  const typed = totalsText(plan.totals)
  // Ctrl-C at the prompt is a CancelledError (exit 130).
  const ok =
    run.profile.profile.env === 'production'
      ? await askTypeBack(`${what}, on PRODUCTION (${run.profile.name}). Type ${typed} to confirm:`, typed)
      : await askConfirm(`${what}?`)
  if (!ok) throw new DeclinedError('Not confirmed; nothing was sent')
}

/** A bar on stderr in a terminal only: count, rate and time left. */
function bar(kind: BulkKind) {
  const line = progress()
  let sendStarted = 0
  return {
    done: () => line.done(),
    planned(rows: number) {
      if (rows % 10 === 0) line.update(`Planning: ${rows} rows read`)
    },
    sent(done: number, total: number) {
      sendStarted ||= Date.now()
      const seconds = Math.max(0.001, (Date.now() - sendStarted) / 1000)
      const rate = done / seconds
      const left = rate > 0 ? Math.ceil((total - done) / rate) : 0
      const width = 20
      const filled = total > 0 ? Math.round((done / total) * width) : width
      line.update(`${kind === 'refund' ? 'Refunds' : 'Voids'} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${rate.toFixed(1)}/s ${left}s left`)
    },
  }
}

/** Runs a bulk void or refund; the document, and the line to close with on stderr. */
export async function runFromFile(run: BulkRun): Promise<{document: BulkDocument | PlanDocument; closing: string; exitCode: number}> {
  if (run.file === '-' && !run.journal) {
    throw new UsageError('--from-file - (standard input) needs --journal FILE: where the run journals each row, so that running it again resumes it. Nothing was sent')
  }

  const journal = run.journal ?? `${run.file}.journal`
  const document = await runBulk(run.money, {
    concurrency: run.concurrency,
    async confirm(plan, refused) {
      await confirmOnce(run.kind, plan, refused, run)
    },
    dryRun: run.dryRun,
    file: run.file,
    journal,
    keepAll: run.keepAll,
    kind: run.kind,
    progress: bar(run.kind),
    rules: {defaultReason: run.reason, idProblem, kind: run.kind},
    warn: (text) => writeNote(escapeControlChars(text)),
  })
  // A row refused because a read it depends on could not be read is a server's fault, not a rule's: exit 6 over 5.
  const refusedCode = document.results.some((r) => r.outcome === 'refused' && r.code === UNREADABLE_PRECHECK) ? 6 : 5
  if ('plan' in document) {
    const {plan} = document
    return {closing: `${planLine(plan)}. Nothing was sent (--dry-run)`, document, exitCode: plan.refused > 0 ? refusedCode : 0}
  }

  const s = document.summary
  const parts = [`${noun(run.kind, s.applied)} applied (${totalsText(s.totals)})`, `${s.refused} refused`, `${s.unknown} unknown`, `${s.skipped} skipped`]
  if (s.reconciled > 0) parts.push(`${s.reconciled} read back`)
  const rerun = s.unknown > 0 ? `; run the same command again to read back and finish the unknown rows (journal ${journal})` : ''
  return {closing: parts.join(', ') + rerun, document, exitCode: s.unknown > 0 ? 7 : s.refused > 0 ? refusedCode : 0}
}
